package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Path;
import java.time.Duration;
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
  private SandboxPods pods;

  @BeforeEach
  void start() throws Exception {
    sandbox =
        Sandbox.start(
            new SandboxOptions(
                directory,
                Sandbox.Driver.KUBE_SCHEDULER,
                List.of(
                    NodeSpec.uniform("n1", "two 910B3", SplitMode.SOFT, "910B3", 2),
                    NodeSpec.uniform("n2", "two 910B3", SplitMode.SOFT, "910B3", 2))));
    pods = new SandboxPods(sandbox);
  }

  @AfterEach
  void stop() {
    sandbox.close();
  }

  @Test
  void aSchedulerRestartInTheMiddleOfABurstOverCommitsNothingAndLosesNoPod() throws Exception {
    List<String> names = IntStream.rangeClosed(1, 12).mapToObj(i -> "burst-" + i).toList();
    for (String name : names.subList(0, 6)) {
      pods.submit(name, 30, 4);
    }
    sandbox.restartScheduler();
    for (String name : names.subList(6, 12)) {
      pods.submit(name, 30, 4);
    }

    await()
        .atMost(WAIT)
        .until(() -> names.stream().allMatch(name -> "Running".equals(pods.phase(name))));
    // Identical pods stood together on a node (ADR 0013): once every hand-out between them is
    // settled, each container runs with what its pod's annotation names. Not before: the
    // scheduler re-signs a swapped pair one pod after the other, and between the two writes both
    // annotations name the same chip (CI once read 120 % on one chip and 60 % on the other there).
    awaitHandoutsSettled();
    assertThat(new BurstScenario(sandbox, line -> {}, WAIT).mismatchedHandouts()).isZero();
    Map<String, Integer> cores = new HashMap<>();
    for (String name : names) {
      for (VnpuAssignment vnpu : pods.vnpus(name)) {
        cores.merge(pods.node(name) + "/" + vnpu.chipIndex(), vnpu.cores(), Integer::sum);
      }
    }
    assertThat(cores.values()).allMatch(sum -> sum <= 100).hasSize(4);
  }

  @Test
  void aKubeletRestartLeavesRunningPodsAloneAndThePluginServesAgain() throws Exception {
    pods.submit("before", 30, 4);
    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("before")));
    SandboxNode node = sandbox.node(pods.node("before"));

    node.restartKubelet();

    await().atMost(WAIT).until(() -> !node.devices().isEmpty());
    pods.submit("after", 30, 4, Map.of(AnnotationKeys.USE_NPU_DIE_ID, "SIM-" + node.name() + "-1"));
    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("after")));
    assertThat(pods.phase("before")).isEqualTo("Running");
    assertThat(pods.node("after")).isEqualTo(node.name());
  }

  @Test
  void noNewPodLandsOnAnUnhealthyChip() throws Exception {
    SandboxNode n1 = sandbox.node("n1");
    assertThat(fitsChip("n1", 0)).isTrue();
    n1.setHealthy(0, false);
    await()
        .atMost(WAIT)
        .until(() -> n1.devices().stream().anyMatch(d -> d.getHealth().equals("Unhealthy")));
    await().atMost(WAIT).until(() -> !fitsChip("n1", 0)); // the scheduler saw the registration

    List<String> names = List.of("u1", "u2", "u3", "u4", "u5", "u6");
    for (String name : names) {
      pods.submit(name, 40, 4);
    }
    await()
        .atMost(WAIT)
        .until(() -> names.stream().allMatch(name -> "Running".equals(pods.phase(name))));
    for (String name : names) {
      assertThat(pods.node(name) + "/" + pods.vnpus(name).get(0).chipIndex()).isNotEqualTo("n1/0");
    }
  }

  /** Waits until no node's locks hold a hand-out record: every swap between pods is settled. */
  private void awaitHandoutsSettled() {
    await()
        .atMost(WAIT)
        .until(() -> sandbox.nodes().stream().allMatch(n -> n.locks().handouts().isEmpty()));
  }

  /** Whether the scheduler's Volcano predicate admits a pod pinned to the node's chip. */
  private boolean fitsChip(String node, int chip) throws Exception {
    Pod pinned =
        new PodBuilder(
                DemoPods.inference(
                    "pinned",
                    40,
                    4,
                    null,
                    Map.of(AnnotationKeys.USE_NPU_DIE_ID, "SIM-" + node + "-" + chip),
                    Map.of()))
            .editMetadata()
            .withUid("pinned")
            .endMetadata()
            .build();
    JsonNode answer =
        ExtenderClient.volcano(sandbox.schedulerUrl())
            .post(
                "/volcano/predicate",
                Map.of(
                    "task",
                    Map.of("Pod", ExtenderClient.pod(pinned)),
                    "node",
                    Map.of("Name", node)));
    return answer.path("code").asInt() == 0;
  }

  @Test
  void deletedPodsGiveTheirSharesBack() throws Exception {
    List<String> full = List.of("f1", "f2", "f3", "f4");
    for (String name : full) {
      pods.submit(name, 60, 4);
    }
    await()
        .atMost(WAIT)
        .until(() -> full.stream().allMatch(name -> "Running".equals(pods.phase(name))));
    pods.submit("waiting", 60, 4);
    await()
        .atMost(WAIT)
        .until(
            () ->
                pods.uid("waiting") != null && sandbox.outcomes().containsKey(pods.uid("waiting")));
    assertThat(pods.pod("waiting").getSpec().getNodeName()).isNull();
    assertThat(sandbox.outcomes().get(pods.uid("waiting")).attempt().reason())
        .contains("0/2 nodes fit")
        .contains("not enough AI Core");

    // The full pods may stand swapped on a node (ADR 0013). Deleted before the device plugin saw
    // it hold its hand-out, a pod leaves that record unclaimed, and its chip stays charged on the
    // record until the record is dropped, 2 minutes after the hand-out (CI once deleted f1 there).
    awaitHandoutsSettled();
    sandbox.client().pods().inNamespace(Scenario.NAMESPACE).withName("f1").delete();

    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("waiting")));
  }
}
