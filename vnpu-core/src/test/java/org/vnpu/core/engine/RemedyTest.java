package org.vnpu.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vnpu.core.engine.Fixtures.context;
import static org.vnpu.core.engine.Fixtures.node;
import static org.vnpu.core.engine.Fixtures.pod;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodRequest;

class RemedyTest {

  private static final PodRequest HARD_SLICE =
      pod("hard", Map.of(AnnotationKeys.MODE, "hard"), "number=1", "cores=25", "memory.1Gi=16");

  @Test
  void aSoftNodeSaysTheHardModeAndTheChipsThatWouldTakeThePod() {
    NodeState soft = idle(node("a2", "910B3", 2));

    Remedy remedy = remedy(HARD_SLICE, soft);

    assertThat(remedy.needed()).isEqualTo("a hard-mode node with 910B3 chips");
    assertThat(remedy.detail())
        .isEqualTo(
            "a2 is in soft mode; labelled huawei.com/vnpu-mode=hard once its vNPU pods are gone,"
                + " it would take the pod on chip(s) 0");
  }

  @Test
  void aHardNodeWithoutAFittingTemplateNamesItsChips() {
    NodeState duo = idle(node("duo", "310P3", 2, SplitMode.HARD, 4));

    Remedy remedy = remedy(HARD_SLICE, duo);

    assertThat(remedy.needed()).startsWith("a hard-mode chip with a free template of at least 25%");
    assertThat(remedy.detail()).isEqualTo("no 310P3 chip of duo has such a template free");
  }

  @Test
  void aShortageSaysHowMuchMoreMustBeFree() {
    NodeState idle = idle(node("a2", "910B3", 1));
    NodeState full =
        idle.withChips(
            List.of(idle.chips().get(0).plus(new ChipDemand(60 * 1024, 10, 0, 0, false))),
            HostResources.UNTRACKED);

    Remedy remedy = remedy(pod("p", Map.of(), "number=1", "cores=10", "memory.1Gi=8"), full);

    assertThat(remedy.needed()).isEqualTo("free device memory");
    assertThat(remedy.detail())
        .isEqualTo("free 4 GiB more on one 910B3 chip of a2 (the largest free is 4 GiB)");
  }

  @Test
  void aLockNamesItsHolderAndWhatWaitsBehindIt() {
    NodeState idle = idle(node("a2", "910B3", 1));
    NodeLock holder =
        new NodeLock(
            "other",
            "team",
            "trainer",
            Fixtures.NOW,
            Fixtures.NOW.plusSeconds(300),
            "n-other",
            "shape-other",
            List.of(1),
            0);
    NodeState locked =
        idle.withChips(
                List.of(idle.chips().get(0).plus(new ChipDemand(60 * 1024, 10, 0, 0, false))),
                HostResources.UNTRACKED)
            .withLocks(NodeLockSet.EMPTY.with(holder, Fixtures.NOW));
    PodRequest pod = pod("p", Map.of(), "number=1", "cores=10", "memory.1Gi=8");

    Remedy remedy = remedy(pod, locked);

    assertThat(remedy.needed()).isEqualTo("the node lock released");
    assertThat(remedy.detail())
        .startsWith("wait for the lock that pod team/trainer holds on a2")
        .endsWith(
            "; then not enough device memory (need 8 GiB, largest free 4 GiB): free 4 GiB more on"
                + " one 910B3 chip of a2 (the largest free is 4 GiB)");
  }

  @Test
  void aStaleDevicePluginSaysWhenItLastReportedAndThatThePodFitsBehindIt() {
    NodeState stale = idle(node("a2", "910B3", 1)).withHeartbeat(Fixtures.NOW.minusSeconds(600));

    Remedy remedy = remedy(pod("p", Map.of(), "number=1", "cores=10"), stale);

    assertThat(remedy.detail())
        .isEqualTo(
            "the device plugin of a2 last reported at 2026-11-29T14:50:00Z (tolerance 60 s):"
                + " check its pod and its log; once it reports, the pod fits on chip(s) 0");
  }

  @Test
  void aMissingChipTypeNamesTheTypesTheNodeHas() {
    Remedy remedy =
        remedy(
            pod("p", Map.of(AnnotationKeys.USE_NPU_TYPE, "910B4"), "number=1", "cores=10"),
            idle(node("duo", "310P3", 2)));

    assertThat(remedy).isEqualTo(new Remedy("a chip of type 910B4", "duo has 310P3 chips"));
  }

  private static NodeState idle(org.vnpu.core.inventory.NodeInventory inventory) {
    return NodeState.idle(inventory, HostResources.UNTRACKED, Fixtures.NOW);
  }

  /** The remedy for the engine's own rejection of the pod on the node. */
  private static Remedy remedy(PodRequest pod, NodeState node) {
    NodeFit fit = PlacementEngine.fit(pod, HostResources.NONE, node, context());
    assertThat(fit).isInstanceOf(NodeFit.Rejected.class);
    return Remedy.of(
        pod, HostResources.NONE, node, ((NodeFit.Rejected) fit).rejection(), context());
  }
}
