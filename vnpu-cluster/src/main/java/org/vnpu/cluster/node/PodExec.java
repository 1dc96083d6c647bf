package org.vnpu.cluster.node;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecListener;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A command run in a container of a pod on the real node, as {@code kubectl exec} runs it. */
final class PodExec {

  private static final long SECONDS = 120;

  /** What the command printed on its standard output, and its exit code. */
  record Result(int exit, String output) {}

  private PodExec() {}

  /** Runs {@code command} in {@code container} of pod {@code namespace/pod} and waits for it. */
  static Result run(
      KubernetesClient admin, String namespace, String pod, String container, List<String> command)
      throws InterruptedException {
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    CountDownLatch closed = new CountDownLatch(1);
    try (ExecWatch exec =
        admin
            .pods()
            .inNamespace(namespace)
            .withName(pod)
            .inContainer(container)
            .writingOutput(output)
            .writingError(new ByteArrayOutputStream())
            .usingListener(
                new ExecListener() {
                  @Override
                  public void onClose(int code, String reason) {
                    closed.countDown();
                  }
                })
            .exec(command.toArray(String[]::new))) {
      int exit = exec.exitCode().get(SECONDS, TimeUnit.SECONDS);
      // The exit code can come before the last of the output; the close comes after it.
      closed.await(SECONDS, TimeUnit.SECONDS);
      return new Result(exit, output.toString(StandardCharsets.UTF_8));
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          String.join(" ", command) + " in pod " + namespace + "/" + pod + ": " + e, e);
    }
  }
}
