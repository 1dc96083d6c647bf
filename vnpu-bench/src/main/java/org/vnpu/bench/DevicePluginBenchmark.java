package org.vnpu.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.deviceplugin.PluginHarness;
import org.vnpu.deviceplugin.ScheduledPods;

/**
 * The device plugin's two latency targets, over real Unix sockets against fabric8's CRUD mock API
 * server: one Allocate call (read node and pod, verify, write the shim config, patch pod and node),
 * and re-registration after a kubelet restart (sockets deleted, kubelet.sock served again, until
 * our Register call arrives).
 */
@Fork(1)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class DevicePluginBenchmark {

  /** One node's plugin and kubelet emulator against a mock API server, for the whole run. */
  @State(Scope.Benchmark)
  public static class Node {
    private MockApiServer api;
    private KubernetesClient client;
    private PluginHarness harness;
    private int pods;
    private int registrations = 1;

    @Setup(Level.Trial)
    public void start() throws IOException {
      api = new MockApiServer();
      client = api.client();
      harness = PluginHarness.start(client, Files.createTempDirectory("vnpu-bench-"), "bench-node");
    }

    @TearDown(Level.Trial)
    public void stop() {
      harness.close();
      api.close();
    }
  }

  /** Allocate calls need a freshly scheduled pod each; it is deleted afterwards. */
  @State(Scope.Thread)
  public static class ScheduledPod {
    private String name;

    @Setup(Level.Invocation)
    public void bind(Node node) {
      name = "pod-" + node.pods++;
      int chip = node.pods % 2;
      node.harness.pods.bind(
          name,
          List.of(
              new ContainerAllocation(
                  "model",
                  false,
                  List.of(ScheduledPods.soft(chip, node.harness.die(chip), 4096, 25)))));
    }

    @TearDown(Level.Invocation)
    public void delete(Node node) {
      node.client.pods().inNamespace(ScheduledPods.NAMESPACE).withName(name).delete();
    }
  }

  /** The kubelet is stopped and its sockets deleted; measurement starts when it serves again. */
  @State(Scope.Thread)
  public static class RestartingKubelet {
    @Setup(Level.Invocation)
    public void goAway(Node node) {
      node.harness.kubelet.stop();
      node.harness.kubelet.deleteSockets();
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 3, time = 10)
  public void allocate(Node node, ScheduledPod pod, Blackhole blackhole) {
    blackhole.consume(node.harness.allocate(1));
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 3)
  @Measurement(iterations = 30)
  public void reRegister(Node node, RestartingKubelet restart) {
    node.harness.kubelet.start();
    node.harness.kubelet.awaitRegistration(
        PluginHarness.RESOURCE, ++node.registrations, Duration.ofSeconds(5));
  }
}
