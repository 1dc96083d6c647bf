package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.VnpuAssignment;

/**
 * The failure drills of the end-to-end test, on a sandbox of two nodes with two 910B3 each, driven
 * the way kube-scheduler drives the extender (the demo's test drives it like Volcano): a scheduler
 * restart in the middle of a burst, a kubelet restart, an unhealthy chip, deleted pods.
 */
class SandboxDrillsTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path directory;
  private Sandbox sandbox;
  private final PayloadCodec codec = new PayloadCodec();

  @BeforeEach
  void start() throws Exception {
    sandbox =
        Sandbox.start(
            new Sandbox.Options(
                directory,
                Sandbox.Driver.KUBE_SCHEDULER,
                List.of(
                    NodeSpec.uniform("n1", "two 910B3", SplitMode.SOFT, "910B3", 2),
                    NodeSpec.uniform("n2", "two 910B3", SplitMode.SOFT, "910B3", 2))));
  }

  @AfterEach
  void stop() {
    sandbox.close();
  }

  @Test
  void aSchedulerRestartInTheMiddleOfABurstOverCommitsNothingAndLosesNoPod() throws Exception {
    List<String> names = IntStream.rangeClosed(1, 12).mapToObj(i -> "burst-" + i).toList();
    for (String name : names.subList(0, 6)) {
      submit(name, 30, 4);
    }
    sandbox.restartScheduler();
    for (String name : names.subList(6, 12)) {
      submit(name, 30, 4);
    }

    await()
        .atMost(WAIT)
        .until(() -> names.stream().allMatch(name -> "Running".equals(phase(name))));
    Map<String, Integer> cores = new HashMap<>();
    for (String name : names) {
      for (VnpuAssignment vnpu : vnpus(name)) {
        cores.merge(node(name) + "/" + vnpu.chipIndex(), vnpu.cores(), Integer::sum);
      }
    }
    assertThat(cores.values()).allMatch(sum -> sum <= 100).hasSize(4);
  }

  @Test
  void aKubeletRestartLeavesRunningPodsAloneAndThePluginServesAgain() throws Exception {
    submit("before", 30, 4);
    await().atMost(WAIT).until(() -> "Running".equals(phase("before")));
    SandboxNode node = sandbox.node(node("before"));

    node.restartKubelet();

    await().atMost(WAIT).until(() -> !node.devices().isEmpty());
    submit("after", 30, 4, Map.of(AnnotationKeys.USE_NPU_DIE_ID, "SIM-" + node.name() + "-1"));
    await().atMost(WAIT).until(() -> "Running".equals(phase("after")));
    assertThat(phase("before")).isEqualTo("Running");
    assertThat(node("after")).isEqualTo(node.name());
  }

  @Test
  void noNewPodLandsOnAnUnhealthyChip() throws Exception {
    SandboxNode n1 = sandbox.node("n1");
    n1.setHealthy(0, false);
    await()
        .atMost(WAIT)
        .until(() -> n1.devices().stream().anyMatch(d -> d.getHealth().equals("Unhealthy")));
    Thread.sleep(1500); // the scheduler's informer sees the node's new registration

    List<String> names = List.of("u1", "u2", "u3", "u4", "u5", "u6");
    for (String name : names) {
      submit(name, 40, 4);
    }
    await()
        .atMost(WAIT)
        .until(() -> names.stream().allMatch(name -> "Running".equals(phase(name))));
    for (String name : names) {
      assertThat(node(name) + "/" + vnpus(name).get(0).chipIndex()).isNotEqualTo("n1/0");
    }
  }

  @Test
  void deletedPodsGiveTheirSharesBack() throws Exception {
    List<String> full = List.of("f1", "f2", "f3", "f4");
    for (String name : full) {
      submit(name, 60, 4);
    }
    await().atMost(WAIT).until(() -> full.stream().allMatch(name -> "Running".equals(phase(name))));
    submit("waiting", 60, 4);
    await()
        .atMost(WAIT)
        .until(() -> uid("waiting") != null && sandbox.outcomes().containsKey(uid("waiting")));
    assertThat(pod("waiting").getSpec().getNodeName()).isNull();
    assertThat(sandbox.outcomes().get(uid("waiting")).attempt().reason())
        .contains("0/2 nodes fit")
        .contains("not enough AI Core");

    sandbox.client().pods().inNamespace(Scenario.NAMESPACE).withName("f1").delete();

    await().atMost(WAIT).until(() -> "Running".equals(phase("waiting")));
  }

  private void submit(String name, int cores, int memoryGib) {
    submit(name, cores, memoryGib, Map.of());
  }

  private void submit(String name, int cores, int memoryGib, Map<String, String> annotations) {
    sandbox
        .client()
        .pods()
        .inNamespace(Scenario.NAMESPACE)
        .resource(
            Scenario.inference(
                name,
                cores,
                memoryGib,
                "elastic",
                annotations,
                Map.of("WORKLOAD_KERNEL_US", "5000")))
        .create();
  }

  private Pod pod(String name) {
    return sandbox.client().pods().inNamespace(Scenario.NAMESPACE).withName(name).get();
  }

  private String uid(String name) {
    Pod pod = pod(name);
    return pod == null ? null : pod.getMetadata().getUid();
  }

  private String phase(String name) {
    Pod pod = pod(name);
    return pod == null || pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }

  private String node(String name) {
    return pod(name).getSpec().getNodeName();
  }

  private List<VnpuAssignment> vnpus(String name) {
    String value = pod(name).getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION);
    List<VnpuAssignment> vnpus = new ArrayList<>();
    for (ContainerAllocation container : codec.decodeAllocation(value).allocation().containers()) {
      vnpus.addAll(container.vnpus());
    }
    return vnpus;
  }
}
