package org.vnpu.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vnpu.core.engine.Fixtures.context;
import static org.vnpu.core.engine.Fixtures.ledger;
import static org.vnpu.core.engine.Fixtures.node;
import static org.vnpu.core.engine.Fixtures.placeAndApply;
import static org.vnpu.core.engine.Fixtures.pod;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.core.fragmentation.WorkloadShape;
import org.vnpu.core.inventory.ChipSupply;
import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodRequest;

class PlacementEngineTest {

  private static final Map<String, String> BINPACK =
      Map.of(
          "huawei.com/vnpu-pod-node-scheduler-policy", "binpack",
          "huawei.com/vnpu-pod-device-scheduler-policy", "binpack");

  private static final Map<String, String> SPREAD =
      Map.of(
          "huawei.com/vnpu-pod-node-scheduler-policy", "spread",
          "huawei.com/vnpu-pod-device-scheduler-policy", "spread");

  @Test
  void feasibilityAnswersAsFitDoesWithoutRankingTheNode() {
    NodeState node = NodeState.idle(node("n", "910B3", 2), HostResources.UNTRACKED, Fixtures.NOW);
    PodRequest fits = pod("p", Map.of(), "number=1", "cores=30", "memory.1Gi=8");
    PodRequest tooBig = pod("q", Map.of(), "number=1", "cores=30", "memory.1Gi=80");

    NodeFit feasible = PlacementEngine.feasibility(fits, HostResources.NONE, context()).apply(node);
    NodeFit fit = PlacementEngine.fit(fits, HostResources.NONE, node, context());

    assertThat(feasible).isInstanceOf(NodeFit.Fits.class);
    assertThat(((NodeFit.Fits) feasible).score()).isNaN();
    assertThat(fit).isInstanceOf(NodeFit.Fits.class);
    assertThat(PlacementEngine.feasibility(tooBig, HostResources.NONE, context()).apply(node))
        .isEqualTo(PlacementEngine.fit(tooBig, HostResources.NONE, node, context()));
  }

  @Test
  void feasibilityAgreesWithFitOnAPartlyUsedNode() {
    NodeState idle = NodeState.idle(node("n", "910B3", 2), HostResources.UNTRACKED, Fixtures.NOW);
    NodeState node =
        idle.withChips(
            List.of(
                idle.chips().get(0).plus(new ChipDemand(40960, 70, 0, 0, false)),
                idle.chips().get(1).plus(new ChipDemand(8192, 20, 0, 0, false))),
            HostResources.UNTRACKED);
    List<PodRequest> pods =
        List.of(
            pod("a", Map.of(), "number=1", "cores=30", "memory.1Gi=8"),
            pod("b", Map.of(), "number=1", "cores=90", "memory.1Gi=8"),
            pod("c", Map.of(), "number=1", "cores=10", "memory.1Gi=60"),
            pod("d", Map.of(), "number=1"),
            pod("e", Map.of(), "number=2"),
            pod(
                "f",
                Map.of(AnnotationKeys.USE_NPU_DIE_ID, "nope"),
                "number=1",
                "cores=10",
                "memory.1Gi=1"));
    for (PodRequest pod : pods) {
      NodeFit fit = PlacementEngine.fit(pod, HostResources.NONE, node, context());
      NodeFit feasible =
          PlacementEngine.feasibility(pod, HostResources.NONE, context()).apply(node);
      assertThat(feasible.getClass()).as(pod.uid()).isEqualTo(fit.getClass());
      if (fit instanceof NodeFit.Rejected rejected) {
        assertThat(feasible).as(pod.uid()).isEqualTo(rejected);
      }
    }
  }

  @Test
  void aPodAcceptingSeveralChipTypesIsPlacedOnAnyOfThemAndOnlyThere() {
    Ledger ledger = ledger(node("duo", "310P3", 2), node("a2", "910B4", 2));
    Map<String, String> either = Map.of("huawei.com/vnpu-use-npu-type", "910B3,910B4");

    Decision placed =
        placeAndApply(ledger, pod("p1", either, "number=1", "cores=30", "memory.1Gi=8"), context());
    Decision refused =
        placeAndApply(
            ledger,
            pod("p2", Map.of("huawei.com/vnpu-use-npu-type", "910B3,910A"), "number=1", "cores=30"),
            context());

    assertThat(((Decision.Placed) placed).plan().node()).isEqualTo("a2");
    assertThat(onlyVnpu(placed).chipType()).isEqualTo("910B4");
    assertThat(((Decision.Unschedulable) refused).reason())
        .isEqualTo("0/2 nodes fit: 2 no chip of type 910A,910B3");
  }

  @Test
  void binpackPutsShareOnTheFullestChipThatFits() {
    Ledger ledger = ledger(node("a2", "910B3", 2));
    placeAndApply(ledger, pod("p1", BINPACK, "number=1", "cores=30", "memory.1Gi=8"), context());

    VnpuAssignment second =
        onlyVnpu(
            placeAndApply(
                ledger, pod("p2", BINPACK, "number=1", "cores=20", "memory.1Gi=8"), context()));

    assertThat(second.chipIndex()).isZero();
    assertThat(chip(ledger, "a2", 0).corePercentUsed()).isEqualTo(50);
    assertThat(chip(ledger, "a2", 0).memoryUsedMiB()).isEqualTo(16384);
  }

  @Test
  void fragmentationAwareKeepsRoomForTheTypicalShapeWhereBinpackWouldNot() {
    WorkloadMix halves =
        new WorkloadMix(
            List.of(
                new WorkloadMix.Weighted(new WorkloadShape(1, 50, 8192L, ChipTypes.ANY, 0), 1.0)));
    NodeState node = NodeState.idle(node("n", "910B3", 2), HostResources.UNTRACKED, Fixtures.NOW);
    List<ChipState> chips =
        List.of(
            node.chips().get(0).plus(new ChipDemand(8192, 40, 0, 0, false)),
            node.chips().get(1).plus(new ChipDemand(8192, 45, 0, 0, false)));
    List<NodeState> snapshot = List.of(node.withChips(chips, HostResources.UNTRACKED));
    PodRequest small = pod("p", Map.of(), "number=1", "cores=10", "memory.1Gi=1");

    Decision aware = PlacementEngine.place(small, HostResources.NONE, snapshot, context(halves));
    Decision packed =
        PlacementEngine.place(
            pod("p", BINPACK, "number=1", "cores=10", "memory.1Gi=1"),
            HostResources.NONE,
            snapshot,
            context(halves));

    assertThat(onlyVnpu(aware).chipIndex())
        .as("60%% free stays able to host a 50%% share")
        .isZero();
    assertThat(onlyVnpu(packed).chipIndex()).as("binpack fills the fuller chip").isEqualTo(1);
  }

  @Test
  void fragmentationAwarePutsCpuHungrySharesWhereHostCpuCanFeedTheChips() {
    WorkloadMix wholeCardsAt12Cores =
        new WorkloadMix(
            List.of(
                new WorkloadMix.Weighted(
                    new WorkloadShape(1, 100, null, ChipTypes.ANY, 12_000), 1.0)));
    List<NodeState> snapshot =
        List.of(
            NodeState.idle(
                node("a-lean", "910B3", 8), new HostResources(96_000, 1 << 20), Fixtures.NOW),
            NodeState.idle(
                node("b-rich", "910B3", 8), new HostResources(200_000, 1 << 20), Fixtures.NOW));
    PodRequest share = pod("p", Map.of(), "number=1", "cores=10", "memory.1Gi=4");
    HostResources cpuHungry = new HostResources(48_000, 0);

    Decision aware =
        PlacementEngine.place(share, cpuHungry, snapshot, context(wholeCardsAt12Cores));
    Decision blind =
        PlacementEngine.place(
            share,
            cpuHungry,
            snapshot,
            context(
                new WorkloadMix(
                    List.of(
                        new WorkloadMix.Weighted(
                            new WorkloadShape(1, 100, null, ChipTypes.ANY, 0), 1.0)))));

    assertThat(((Decision.Placed) aware).plan().node())
        .as("48 of a-lean's 96 cores would leave 4 of its 8 chips without the 12 cores each needs")
        .isEqualTo("b-rich");
    assertThat(((Decision.Placed) blind).plan().node())
        .as("a mix that asks no CPU sees two equal nodes; the first name wins")
        .isEqualTo("a-lean");
  }

  @Test
  void fragmentationAwareLeavesAScarceTypeToThePodsThatAcceptOnlyIt() {
    NodeState scarce =
        NodeState.idle(node("a-scarce", "910B2", 4), HostResources.UNTRACKED, Fixtures.NOW);
    List<ChipState> chips = new ArrayList<>(scarce.chips());
    chips.set(0, chips.get(0).plus(new ChipDemand(16_384, 75, 0, 0, false)));
    List<NodeState> snapshot =
        List.of(
            scarce.withChips(chips, HostResources.UNTRACKED),
            NodeState.idle(node("b-plenty", "910B3", 4), HostResources.UNTRACKED, Fixtures.NOW));
    PodRequest flexible =
        pod(
            "p",
            Map.of(
                "huawei.com/vnpu-pod-node-scheduler-policy", "fragmentation-aware",
                "huawei.com/vnpu-pod-device-scheduler-policy", "fragmentation-aware"),
            "number=1",
            "cores=25",
            "memory.1Gi=8");
    ChipSupply supply = new ChipSupply(Map.of("910B2", 4L, "910B3", 12L));

    Decision knowingSupply =
        PlacementEngine.place(
            flexible, HostResources.NONE, snapshot, context(Fixtures.WITH_SCARCE_TYPE, supply));
    Decision blind =
        PlacementEngine.place(
            flexible, HostResources.NONE, snapshot, context(Fixtures.WITH_SCARCE_TYPE));

    assertThat(((Decision.Placed) knowingSupply).plan().node())
        .as("half the mix's 910B2-only compute seeks a quarter of the chips")
        .isEqualTo("b-plenty");
    assertThat(((Decision.Placed) blind).plan().node())
        .as("without the supply, filling the quarter left on a 910B2 chip fragments least")
        .isEqualTo("a-scarce");
  }

  @Test
  void spreadPutsShareOnTheEmptiestChipAndNode() {
    Ledger ledger = ledger(node("a", "910B3", 2), node("b", "910B3", 2));
    placeAndApply(ledger, pod("p1", SPREAD, "number=1", "cores=30", "memory.1Gi=8"), context());

    Decision.Placed second =
        (Decision.Placed)
            placeAndApply(
                ledger, pod("p2", SPREAD, "number=1", "cores=30", "memory.1Gi=8"), context());

    assertThat(second.plan().node()).isEqualTo("b");
    Decision.Placed third =
        (Decision.Placed)
            placeAndApply(
                ledger, pod("p3", SPREAD, "number=1", "cores=30", "memory.1Gi=8"), context());
    assertThat(onlyVnpu(third).chipIndex()).isEqualTo(1);
  }

  @Test
  void writesTheAllocationAsTheContractDescribes() {
    Ledger ledger = ledger(node("a2", "910B3", 1));
    Decision.Placed placed =
        (Decision.Placed)
            placeAndApply(
                ledger,
                pod(
                    "p1",
                    Map.of("huawei.com/vnpu-aicore-policy", "fixed-share"),
                    "number=1",
                    "cores=25",
                    "memory.1Gi=16"),
                context());

    assertThat(placed.plan().podUid()).isEqualTo("p1");
    assertThat(onlyVnpu(placed))
        .isEqualTo(
            new VnpuAssignment(
                0,
                "a2-d0",
                "910B3",
                16384,
                25,
                SplitMode.SOFT,
                false,
                AiCorePolicy.FIXED_SHARE,
                null));
  }

  @Test
  void shareWithoutMemoryTakesTheWholeChipsMemory() {
    Ledger ledger = ledger(node("a2", "910B3", 1));
    placeAndApply(ledger, pod("p1", Map.of(), "number=1", "cores=30"), context());

    Decision next =
        placeAndApply(
            ledger, pod("p2", Map.of(), "number=1", "cores=10", "memory.1Gi=1"), context());

    assertThat(reason(next))
        .isEqualTo("0/1 nodes fit: 1 not enough device memory (need 1 GiB, largest free 0 GiB)");
  }

  @Test
  void bestEffortReservesMemoryButNoAiCore() {
    Ledger ledger = ledger(node("a2", "910B3", 1));
    placeAndApply(ledger, pod("p1", Map.of(), "number=1", "cores=100"), context());
    ledger = ledger(node("b", "910B3", 1));
    placeAndApply(ledger, pod("be", Map.of(), "number=1", "cores=0", "memory.1Gi=4"), context());

    assertThat(chip(ledger, "b", 0).corePercentUsed()).isZero();
    assertThat(chip(ledger, "b", 0).memoryUsedMiB()).isEqualTo(4096);
    assertThat(
            placeAndApply(
                ledger, pod("full", Map.of(), "number=1", "cores=99", "memory.1Gi=8"), context()))
        .isInstanceOf(Decision.Placed.class);
  }

  @Test
  void rejectsNodeWhenNoChipHasEnoughMemory() {
    Ledger ledger = ledger(node("a2", "910B3", 2));
    placeAndApply(ledger, pod("p1", Map.of(), "number=1", "cores=10", "memory.1Gi=32"), context());
    placeAndApply(ledger, pod("p2", Map.of(), "number=1", "cores=10", "memory.1Gi=40"), context());

    Decision decision =
        placeAndApply(
            ledger, pod("p3", Map.of(), "number=1", "cores=10", "memory.1Gi=40"), context());

    assertThat(reason(decision))
        .isEqualTo("0/1 nodes fit: 1 not enough device memory (need 40 GiB, largest free 32 GiB)");
  }

  @Test
  void aggregatesReasonsOfAllNodesIntoOneSentence() {
    Ledger ledger =
        ledger(
            node("a", "910B4", 1), node("b", "910B4", 1), node("h", "310P3", 1, SplitMode.HARD, 7));

    Decision decision =
        placeAndApply(
            ledger, pod("p", Map.of(), "number=1", "cores=50", "memory.1Gi=40"), context());

    assertThat(reason(decision))
        .isEqualTo(
            "0/3 nodes fit: 2 not enough device memory (need 40 GiB, largest free 32 GiB), 1 split mode is hard");
  }

  @Test
  void limitsSharesPerChip() {
    Ledger ledger = ledger(node("n", "910B3", 1, SplitMode.SOFT, 2));
    placeAndApply(ledger, pod("p1", Map.of(), "number=1", "cores=10", "memory.1Gi=1"), context());
    placeAndApply(ledger, pod("p2", Map.of(), "number=1", "cores=10", "memory.1Gi=1"), context());

    Decision third =
        placeAndApply(
            ledger, pod("p3", Map.of(), "number=1", "cores=10", "memory.1Gi=1"), context());

    assertThat(reason(third)).isEqualTo("0/1 nodes fit: 1 share slots exhausted (2 per chip)");
  }

  @Test
  void neverExceedsOneHundredPercentOfAiCore() {
    Ledger ledger = ledger(node("n", "910B3", 1));
    placeAndApply(ledger, pod("p1", Map.of(), "number=1", "cores=70", "memory.1Gi=1"), context());

    Decision second =
        placeAndApply(
            ledger, pod("p2", Map.of(), "number=1", "cores=40", "memory.1Gi=1"), context());

    assertThat(reason(second))
        .isEqualTo("0/1 nodes fit: 1 not enough AI Core (need 40%, largest free 30%)");
  }

  @Test
  void wholeCardAndSharesMixOnOneNodeButNeverOnOneChip() {
    Ledger ledger = ledger(node("n", "910B3", 2));
    placeAndApply(
        ledger, pod("share", Map.of(), "number=1", "cores=10", "memory.1Gi=1"), context());

    VnpuAssignment whole =
        onlyVnpu(placeAndApply(ledger, pod("whole", Map.of(), "number=1"), context()));
    Decision another = placeAndApply(ledger, pod("whole2", Map.of(), "number=1"), context());

    assertThat(whole.chipIndex()).isEqualTo(1);
    assertThat(whole.wholeCard()).isTrue();
    assertThat(whole.memoryMiB()).isEqualTo(65536);
    assertThat(reason(another)).isEqualTo("0/1 nodes fit: 1 no idle chip for a whole card");
    assertThat(
            placeAndApply(
                ledger, pod("share2", Map.of(), "number=1", "cores=10", "memory.1Gi=1"), context()))
        .satisfies(d -> assertThat(onlyVnpu(d).chipIndex()).isZero());
  }

  @Test
  void multiChipWholeCardKeepsToOneInterconnectGroup() {
    Ledger ledger = ledger(node("train", "910A", 8));
    placeAndApply(ledger, pod("small", Map.of(), "number=1"), context());

    Decision.Placed four =
        (Decision.Placed) placeAndApply(ledger, pod("four", Map.of(), "number=4"), context());

    assertThat(four.plan().allocation().containers().get(0).vnpus())
        .extracting(VnpuAssignment::chipIndex)
        .containsExactly(4, 5, 6, 7);
  }

  @Test
  void multiChipWholeCardSpansGroupsWhenNoGroupHoldsIt() {
    Ledger ledger = ledger(node("train", "910A", 8));
    placeAndApply(ledger, pod("a", Map.of(), "number=1"), context());
    placeAndApply(ledger, pod("b", Map.of(), "number=1"), context());
    ledger.release("a");
    assertThat(chip(ledger, "train", 0).fitsWholeCard()).isTrue();

    Decision.Placed six =
        (Decision.Placed) placeAndApply(ledger, pod("six", Map.of(), "number=6"), context());
    assertThat(six.plan().allocation().containers().get(0).vnpus()).hasSize(6);

    Decision tooMany = placeAndApply(ledger, pod("two", Map.of(), "number=2"), context());
    assertThat(reason(tooMany)).isEqualTo("0/1 nodes fit: 1 not enough chips (need 2, found 1)");
  }

  @Test
  void hardModeTakesTheSmallestTemplateByAiCpuLevel() {
    Map<String, String> hard = Map.of("huawei.com/vnpu-mode", "hard");
    Map<String, String> hardHigh =
        Map.of("huawei.com/vnpu-mode", "hard", "huawei.com/vnpu-hard-aicpu-level", "high");
    Ledger ledger = ledger(node("duo", "310P3", 2, SplitMode.HARD, 7));

    assertThat(
            onlyVnpu(placeAndApply(ledger, pod("low", hard, "number=1", "cores=50"), context()))
                .template())
        .isEqualTo("vir04_3c");
    assertThat(
            onlyVnpu(
                    placeAndApply(ledger, pod("high", hardHigh, "number=1", "cores=50"), context()))
                .template())
        .isEqualTo("vir04");
    assertThat(
            onlyVnpu(placeAndApply(ledger, pod("one", hard, "number=1", "cores=10"), context()))
                .template())
        .isEqualTo("vir01");
    assertThat(
            onlyVnpu(placeAndApply(ledger, pod("two", hard, "number=1", "cores=25"), context()))
                .template())
        .isEqualTo("vir02_1c");
  }

  @Test
  void hardModeNeverExceedsTheChipsAiCpus() {
    Map<String, String> high =
        Map.of("huawei.com/vnpu-mode", "hard", "huawei.com/vnpu-hard-aicpu-level", "high");
    Ledger ledger = ledger(node("duo", "310P3", 1, SplitMode.HARD, 7));

    VnpuAssignment first =
        onlyVnpu(placeAndApply(ledger, pod("a", high, "number=1", "cores=50"), context()));
    VnpuAssignment second =
        onlyVnpu(placeAndApply(ledger, pod("b", high, "number=1", "cores=50"), context()));

    assertThat(first.template()).isEqualTo("vir04");
    assertThat(second.template()).as("4 + 4 AI CPUs exceed 7: downgraded").isEqualTo("vir04_3c");
    ChipState chip = chip(ledger, "duo", 0);
    assertThat(chip.aiCoresUsed()).isEqualTo(8);
    assertThat(chip.aiCpusUsed()).isEqualTo(7);
    assertThat(
            placeAndApply(
                ledger,
                pod("c", Map.of("huawei.com/vnpu-mode", "hard"), "number=1", "cores=10"),
                context()))
        .isInstanceOf(Decision.Unschedulable.class);
  }

  @Test
  void hardModeRejectsChipWithoutTemplates() {
    Ledger ledger = ledger(node("b1", "910B1", 1, SplitMode.HARD, 7));
    Decision decision =
        placeAndApply(
            ledger,
            pod("p", Map.of("huawei.com/vnpu-mode", "hard"), "number=1", "cores=50"),
            context());
    assertThat(reason(decision))
        .isEqualTo("0/1 nodes fit: 1 no hard-mode template fits (50% AI Core)");
  }

  @Test
  void wholeCardPodsFitNodesOfEitherMode() {
    Ledger ledger = ledger(node("duo", "310P3", 1, SplitMode.HARD, 7));
    assertThat(placeAndApply(ledger, pod("whole", Map.of(), "number=1"), context()))
        .isInstanceOf(Decision.Placed.class);
  }

  @Test
  void honoursChipTypeAndDieIdPins() {
    Ledger ledger = ledger(node("a", "910B3", 2), node("b", "310P3", 2));

    Decision.Placed typed =
        (Decision.Placed)
            placeAndApply(
                ledger,
                pod("t", Map.of(), "number=1", "cores=10", "memory.1Gi=1", "type.310P3=1"),
                context());
    Decision.Placed pinned =
        (Decision.Placed)
            placeAndApply(
                ledger,
                pod(
                    "d",
                    Map.of("huawei.com/vnpu-use-npu-dieID", "a-d1"),
                    "number=1",
                    "cores=10",
                    "memory.1Gi=1"),
                context());
    Decision missing =
        placeAndApply(
            ledger,
            pod(
                "m",
                Map.of("huawei.com/vnpu-use-npu-dieID", "zz"),
                "number=1",
                "cores=10",
                "memory.1Gi=1"),
            context());

    assertThat(typed.plan().node()).isEqualTo("b");
    assertThat(onlyVnpu(pinned).dieId()).isEqualTo("a-d1");
    assertThat(reason(missing)).isEqualTo("0/2 nodes fit: 2 no chip with die ID zz");
  }

  @Test
  void findsThePinnedDieAmongInterchangeableChips() {
    Ledger ledger = ledger(node("a", "910B3", 4));
    Decision.Placed pinned =
        (Decision.Placed)
            placeAndApply(
                ledger,
                pod(
                    "d",
                    Map.of("huawei.com/vnpu-use-npu-dieID", "a-d3"),
                    "number=1",
                    "cores=10",
                    "memory.1Gi=1"),
                context());
    assertThat(onlyVnpu(pinned).dieId()).isEqualTo("a-d3");
  }

  @Test
  void skipsUnhealthyChips() {
    Ledger ledger = new Ledger();
    var inventory = node("n", "910B3", 2);
    var chips = List.of(inventory.chips().get(0), inventory.chips().get(1).withHealth(false));
    ledger.putNode(
        new org.vnpu.core.inventory.NodeInventory("n", SplitMode.SOFT, 20, chips),
        HostResources.UNTRACKED);
    ledger.heartbeat("n", Fixtures.NOW);

    placeAndApply(ledger, pod("a", Map.of(), "number=1"), context());
    Decision second = placeAndApply(ledger, pod("b", Map.of(), "number=1"), context());

    assertThat(chip(ledger, "n", 0).exclusive()).isTrue();
    assertThat(reason(second)).isEqualTo("0/1 nodes fit: 1 no idle chip for a whole card");
    Ledger onlySick = new Ledger();
    onlySick.putNode(
        new org.vnpu.core.inventory.NodeInventory("s", SplitMode.SOFT, 20, List.of(chips.get(1))),
        HostResources.UNTRACKED);
    onlySick.heartbeat("s", Fixtures.NOW);
    assertThat(reason(placeAndApply(onlySick, pod("c", Map.of(), "number=1"), context())))
        .isEqualTo("0/1 nodes fit: 1 the matching chips are unhealthy");
  }

  @Test
  void skipsNodesWithStaleHeartbeatOrAnotherPodsLock() {
    Ledger ledger =
        ledger(node("stale", "910B3", 1), node("locked", "910B3", 1), node("ok", "910B3", 1));
    ledger.heartbeat("stale", Fixtures.NOW.minusSeconds(61));
    ledger.lock("locked", lock("other", Fixtures.NOW, Fixtures.NOW.plusSeconds(300), 1));

    Decision.Placed placed =
        (Decision.Placed) placeAndApply(ledger, pod("p", Map.of(), "number=1"), context());
    assertThat(placed.plan().node()).isEqualTo("ok");

    Decision none = placeAndApply(ledger, pod("q", Map.of(), "number=1"), context());
    assertThat(reason(none))
        .isEqualTo(
            "0/3 nodes fit: 1 device plugin heartbeat is stale, 1 node is locked by another pod's"
                + " allocation, 1 no idle chip for a whole card");
  }

  @Test
  void expiredLockOrOwnLockDoesNotBlock() {
    Ledger ledger = ledger(node("n", "910B3", 1));
    ledger.lock("n", lock("mine", Fixtures.NOW.minusSeconds(10), Fixtures.NOW.plusSeconds(300), 1));
    assertThat(placeAndApply(ledger, pod("mine", Map.of(), "number=1"), context()))
        .isInstanceOf(Decision.Placed.class);

    Ledger expired = ledger(node("n", "910B3", 1));
    expired.lock(
        "n", lock("other", Fixtures.NOW.minusSeconds(400), Fixtures.NOW.minusSeconds(100), 1));
    assertThat(placeAndApply(expired, pod("p", Map.of(), "number=1"), context()))
        .isInstanceOf(Decision.Placed.class);
  }

  @Test
  void anotherPodsLockBlocksOnlyPodsAskingForTheSameVnpuCount() {
    Ledger ledger = ledger(node("n", "910B3", 4));
    ledger.lock("n", lock("other", Fixtures.NOW, Fixtures.NOW.plusSeconds(300), 1));

    assertThat(placeAndApply(ledger, pod("two", Map.of(), "number=2"), context()))
        .isInstanceOf(Decision.Placed.class);
    assertThat(reason(placeAndApply(ledger, pod("one", Map.of(), "number=1"), context())))
        .isEqualTo("0/1 nodes fit: 1 node is locked by another pod's allocation");
  }

  private static NodeLock lock(String uid, Instant at, Instant expires, int count) {
    return new NodeLock(uid, "ns", "p", at, expires, "n-" + uid, "shape-" + uid, List.of(count), 0);
  }

  @Test
  void putsTheVnpusOfOneContainerOnDistinctChipsAndContainersMayShare() {
    Ledger ledger = ledger(node("n", "910B3", 3));
    PodRequest request =
        pod(
            "multi",
            Map.of(),
            List.of(
                Fixtures.container("a", "number=1", "cores=10", "memory.1Gi=1"),
                Fixtures.container("b", "number=1", "cores=10", "memory.1Gi=1"),
                Fixtures.container("c", "number=2")));

    Decision.Placed placed = (Decision.Placed) placeAndApply(ledger, request, context());

    assertThat(placed.plan().allocation().containers())
        .extracting(c -> c.vnpus().size())
        .containsExactly(1, 1, 2);
    assertThat(ledger.placements()).containsKey("multi");
  }

  @Test
  void rejectsHostResourcesItCannotCover() {
    Ledger ledger = new Ledger();
    ledger.putNode(node("n", "910B3", 1), new HostResources(4000, 8192));
    ledger.heartbeat("n", Fixtures.NOW);

    Decision cpu =
        PlacementEngine.place(
            pod("p", Map.of(), "number=1"), new HostResources(8000, 1), ledger.nodes(), context());
    Decision memory =
        PlacementEngine.place(
            pod("p", Map.of(), "number=1"), new HostResources(1, 9000), ledger.nodes(), context());

    assertThat(reason(cpu)).isEqualTo("0/1 nodes fit: 1 not enough host CPU");
    assertThat(reason(memory)).isEqualTo("0/1 nodes fit: 1 not enough host memory");
  }

  @Test
  void breaksTiesByNodeName() {
    Ledger ledger = ledger(node("b", "910B3", 1), node("a", "910B3", 1), node("c", "910B3", 1));
    Decision.Placed placed =
        (Decision.Placed) placeAndApply(ledger, pod("p", Map.of(), "number=1"), context());
    assertThat(placed.plan().node()).isEqualTo("a");
  }

  @Test
  void theBestOfScoresIsTheNodeItWouldPlaceOn() {
    assertThat(PlacementEngine.best(Map.of("b", 40.0, "a", 40.0 + 1e-12, "c", 39.0)))
        .as("scores within the tolerance tie, and the node named first wins, as in place")
        .contains("a");
    assertThat(PlacementEngine.best(Map.of("b", 40.0, "a", 39.99))).contains("b");
    assertThat(PlacementEngine.best(Map.of())).isEmpty();

    Ledger ledger = ledger(node("b", "910B3", 2), node("a", "910B3", 2));
    placeAndApply(ledger, pod("first", BINPACK, "number=1", "cores=25"), context());
    PodRequest next = pod("next", BINPACK, "number=1", "cores=25");
    Map<String, Double> scores = new HashMap<>();
    for (NodeState node : ledger.nodes()) {
      if (PlacementEngine.fit(next, HostResources.NONE, node, context())
          instanceof NodeFit.Fits fits) {
        scores.put(node.name(), fits.score());
      }
    }
    Decision.Placed placed = (Decision.Placed) placeAndApply(ledger, next, context());
    assertThat(PlacementEngine.best(scores)).contains(placed.plan().node());
  }

  @Test
  void saysSoWhenThereAreNoNodes() {
    Decision decision =
        PlacementEngine.place(
            pod("p", Map.of(), "number=1"), HostResources.NONE, List.of(), context());
    assertThat(reason(decision)).isEqualTo("0/0 nodes fit: no vNPU node is known");
  }

  private static String reason(Decision decision) {
    assertThat(decision).as("%s", decision).isInstanceOf(Decision.Unschedulable.class);
    return ((Decision.Unschedulable) decision).reason();
  }

  private static ChipState chip(Ledger ledger, String node, int position) {
    return ledger.node(node).orElseThrow().chips().get(position);
  }

  private static VnpuAssignment onlyVnpu(Decision decision) {
    assertThat(decision).as("%s", decision).isInstanceOf(Decision.Placed.class);
    return ((Decision.Placed) decision).plan().allocation().containers().get(0).vnpus().get(0);
  }
}
