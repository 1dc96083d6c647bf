package org.vnpu.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A JVM whose SIGTERM was taken from it (as helm-java's Go library does; here by a handler that
 * does nothing) runs its shutdown hooks on SIGTERM again once the signals are reclaimed.
 */
class ShutdownSignalsTest {

  @Test
  void aTakenSigtermIsIgnored() throws Exception {
    Run run = run(false);
    assertThat(run.output()).startsWith("still alive");
    assertThat(run.exit()).isZero();
  }

  @Test
  void aReclaimedSigtermExitsThroughTheShutdownHooks() throws Exception {
    Run run = run(true);
    assertThat(run.output()).contains("hook ran").doesNotContain("still alive");
    assertThat(run.exit()).isEqualTo(128 + 15);
  }

  private record Run(int exit, String output) {}

  private static Run run(boolean reclaim) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                SignalledProgram.class.getName()));
    if (reclaim) {
      command.add("reclaim");
    }
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(
        child.exitValue(),
        new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  /** Has SIGTERM taken from it, reclaims it when asked, then sends itself SIGTERM. */
  public static final class SignalledProgram {
    public static void main(String[] arguments) throws Exception {
      Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("hook ran")));
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handler = Class.forName("sun.misc.SignalHandler");
      Object nothing =
          Proxy.newProxyInstance(
              SignalledProgram.class.getClassLoader(),
              new Class<?>[] {handler},
              (proxy, method, values) -> method.getName().equals("hashCode") ? 0 : null);
      signal
          .getMethod("handle", signal, handler)
          .invoke(null, signal.getConstructor(String.class).newInstance("TERM"), nothing);
      if (arguments.length > 0) {
        ShutdownSignals.reclaim();
      }
      new ProcessBuilder("kill", "-TERM", Long.toString(ProcessHandle.current().pid()))
          .start()
          .waitFor();
      Thread.sleep(3_000);
      System.out.println("still alive");
      System.exit(0);
    }
  }
}
