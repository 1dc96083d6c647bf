package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.SplitMode;

/**
 * kube-scheduler's {@code DefaultPreemption} as the sandbox emulates it ({@link KubePreemption}):
 * it preempts only where its own filter plugins need a victim, asks the extender which victims it
 * may take, evicts them as kube-scheduler does and nominates the pod, which then starts on the
 * node.
 */
class KubeSchedulerPreemptionTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path directory;
  private Sandbox sandbox;
  private SandboxPods pods;

  private void start(NodeSpec node) throws Exception {
    sandbox =
        SandboxPods.start(
            directory, Sandbox.Driver.KUBE_SCHEDULER, List.of(node), VolcanoConfig.shipped());
    pods = new SandboxPods(sandbox);
  }

  @AfterEach
  void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  /**
   * One chip: an offline pod takes 60 of the node's 100 {@code vnpu-cores}, so {@code
   * NodeResourcesFit} refuses an online pod of 60 and the dry run needs the offline pod as victim.
   * The extender keeps it; the victim gets kube-scheduler's {@code Preempted} event and goes, and
   * the online pod, nominated to the node, starts there. A cycle without the post-filter would
   * leave the online pod pending for good.
   */
  @Test
  void anOnlinePodPreemptsTheOfflinePodWhenTheNodesVnpuCoresAreShort() throws Exception {
    start(NodeSpec.uniform("solo", "one 910B3", SplitMode.SOFT, "910B3", 1));
    pods.create(SandboxPods.prioritized("batch", "offline", -10));
    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("batch")));
    String batch = pods.uid("batch");

    pods.create(SandboxPods.prioritized("serving", "online", 1000));

    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("serving")));
    assertThat(pods.node("serving")).isEqualTo("solo");
    assertThat(pods.pod("batch")).isNull();
    List<Event> preempted =
        events().stream().filter(e -> "Preempted".equals(e.getReason())).toList();
    assertThat(preempted).hasSize(1);
    assertThat(preempted.get(0).getInvolvedObject().getUid()).isEqualTo(batch);
    assertThat(preempted.get(0).getMessage())
        .isEqualTo("Preempted by pod " + pods.uid("serving") + " on node solo");
  }

  /**
   * {@code addGENominatedPods}: once the online pod is nominated to the node, a pod of lower
   * priority that arrives while it waits for its next cycle is refused by {@code NodeResourcesFit}
   * itself, which counts the nominated pod on the node: the place goes to the pod it was made for.
   * Without that step only the extender's hold would refuse the newcomer, with another reason.
   */
  @Test
  void aLowerPriorityPodDoesNotTakeTheRoomMadeForANominatedPod() throws Exception {
    start(NodeSpec.uniform("solo", "one 910B3", SplitMode.SOFT, "910B3", 1));
    pods.create(SandboxPods.prioritized("batch", "offline", -10));
    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("batch")));
    pods.create(SandboxPods.prioritized("serving", "online", 1000));
    await()
        .atMost(WAIT)
        .until(
            () -> {
              Pod serving = pods.pod("serving");
              return serving.getStatus() != null
                  && "solo".equals(serving.getStatus().getNominatedNodeName());
            });

    pods.create(SandboxPods.prioritized("sneaky", "online", 0));

    // Its first refusal, while the online pod still waits (later ones see the online pod run).
    await().atMost(WAIT).until(() -> pods.notBoundBecause("sneaky") != null);
    String firstRefusal = pods.notBoundBecause("sneaky");
    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("serving")));
    assertThat(firstRefusal)
        .startsWith("0/1 nodes fit: 1 Insufficient " + ResourceNames.VNPU_CORES);
    assertThat(pods.node("serving")).isEqualTo("solo");
    assertThat(pods.node("sneaky")).isNull();
  }

  /**
   * Two chips, each with an offline pod of 60: the node's {@code vnpu-cores} still has 80 free, so
   * the plugins pass an online pod of 60 that no chip can hold. Upstream's dry run then needs no
   * victim on the node and keeps no candidate ("expected at least one victim pod"), so nothing is
   * preempted and the online pod waits: the limit docs/colocation.md states. An emulation that
   * asked the extender regardless would evict one of them.
   */
  @Test
  void roomSpreadOverChipsIsNotPreemptedFor() throws Exception {
    start(NodeSpec.uniform("pair", "two 910B3", SplitMode.SOFT, "910B3", 2));
    for (String name : List.of("batch-1", "batch-2")) {
      pods.create(SandboxPods.prioritized(name, "offline", -10));
    }
    await()
        .atMost(WAIT)
        .until(
            () ->
                List.of("batch-1", "batch-2").stream()
                    .allMatch(n -> "Running".equals(pods.phase(n))));

    pods.create(SandboxPods.prioritized("serving", "online", 1000));

    await().atMost(WAIT).until(() -> pods.notBoundBecause("serving") != null);
    assertThat(pods.notBoundBecause("serving"))
        .contains("; preemption: 0/1 nodes fit: 1 expected at least one victim pod on node pair");
    assertThat(pods.pod("batch-1")).isNotNull();
    assertThat(pods.pod("batch-2")).isNotNull();
    assertThat(events()).noneMatch(e -> "Preempted".equals(e.getReason()));
  }

  /**
   * {@code PodEligibleToPreemptOthers}: a pod with {@code preemptionPolicy: Never} preempts
   * nothing, even where another pod of its priority would.
   */
  @Test
  void aPodThatMayNotPreemptWaits() throws Exception {
    start(NodeSpec.uniform("solo", "one 910B3", SplitMode.SOFT, "910B3", 1));
    pods.create(SandboxPods.prioritized("batch", "offline", -10));
    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("batch")));

    Pod polite = SandboxPods.prioritized("polite", "online", 1000);
    polite.getSpec().setPreemptionPolicy("Never");
    pods.create(polite);

    await().atMost(WAIT).until(() -> pods.notBoundBecause("polite") != null);
    assertThat(pods.notBoundBecause("polite"))
        .endsWith("; preemption: not eligible due to preemptionPolicy=Never.");
    assertThat(pods.pod("batch")).isNotNull();
  }

  private List<Event> events() {
    return sandbox.client().v1().events().inNamespace(Scenario.NAMESPACE).list().getItems();
  }
}
