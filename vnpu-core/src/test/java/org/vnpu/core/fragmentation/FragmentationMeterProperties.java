package org.vnpu.core.fragmentation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AiCpuLevel;
import org.vnpu.api.SplitMode;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.engine.Fixtures;
import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.ledger.VnpuSizer;

class FragmentationMeterProperties {

  @Property(tries = 300)
  void agreesWithTheDefinitionBeforeAndAfterAChange(
      @ForAll("nodes") NodeState node,
      @ForAll("mixes") WorkloadMix mix,
      @ForAll("usages") List<Integer> change) {
    FragmentationMeter meter = new FragmentationMeter(mix);
    assertThat(meter.fragmentation(node))
        .isCloseTo(definition(node.chips(), node.hostFree(), node, mix), within(1e-6));

    Trial trial = Trial.of(node, change);
    assertThat(meter.fragmentationAfter(node, trial.chips(), trial.host()))
        .isCloseTo(definition(List.of(trial.chips()), trial.host(), node, mix), within(1e-6));
  }

  @Property(tries = 300)
  void growthIsTheFragmentationGrowthPlusTheComputeTheHostCpuCanNoLongerFeed(
      @ForAll("nodes") NodeState node,
      @ForAll("mixes") WorkloadMix mix,
      @ForAll("usages") List<Integer> change) {
    FragmentationMeter meter = new FragmentationMeter(mix);
    Trial trial = Trial.of(node, change);

    double expected =
        definition(List.of(trial.chips()), trial.host(), node, mix)
            - definition(node.chips(), node.hostFree(), node, mix)
            + stranded(List.of(trial.chips()), trial.host(), mix)
            - stranded(node.chips(), node.hostFree(), mix);
    assertThat(meter.growth(node, trial.chips(), trial.host())).isCloseTo(expected, within(1e-6));
  }

  /** The node's chips and host after one vNPU of the {@code usages} kind, where it fits. */
  private record Trial(ChipState[] chips, HostResources host) {

    static Trial of(NodeState node, List<Integer> change) {
      ChipState[] after = node.chips().toArray(new ChipState[0]);
      int position = change.get(0) % after.length;
      ChipDemand demand = new ChipDemand(change.get(1) * 1024L, change.get(2), 0, 0, false);
      if (after[position].fits(demand, 20)) {
        after[position] = after[position].plus(demand);
      }
      return new Trial(after, node.hostFree().minus(new HostResources(change.get(1) * 1000L, 0)));
    }
  }

  /**
   * Free compute beyond what the host CPU feeds at the CPU the mix's vNPU pods ask per percent of
   * compute, written out directly.
   */
  private static double stranded(List<ChipState> chips, HostResources host, WorkloadMix mix) {
    double cpu = 0;
    double compute = 0;
    for (WorkloadMix.Weighted weighted : mix.shapes()) {
      if (weighted.shape().count() > 0) {
        cpu += weighted.probability() * weighted.shape().cpuMilli();
        compute +=
            weighted.probability() * weighted.shape().count() * weighted.shape().corePercent();
      }
    }
    if (cpu == 0 || compute == 0) {
      return 0;
    }
    double free = chips.stream().mapToDouble(ChipState::freeComputePercent).sum();
    return Math.max(0, free - Math.max(0, host.cpuMilli()) * compute / cpu);
  }

  /** The paper's measure, written out directly. */
  private static double definition(
      List<ChipState> chips, HostResources host, NodeState node, WorkloadMix mix) {
    double total = chips.stream().mapToDouble(ChipState::freeComputePercent).sum();
    double sum = 0;
    for (WorkloadMix.Weighted weighted : mix.shapes()) {
      WorkloadShape shape = weighted.shape();
      double unusable = total;
      if (shape.count() > 0 && shape.cpuMilli() <= host.cpuMilli()) {
        int hosting = 0;
        double hostingFree = 0;
        for (ChipState chip : chips) {
          if (hosts(chip, shape, node)) {
            hosting++;
            hostingFree += chip.freeComputePercent();
          }
        }
        if (hosting >= shape.count()) {
          unusable = total - hostingFree;
        }
      }
      sum += weighted.probability() * unusable;
    }
    return sum;
  }

  private static boolean hosts(ChipState chip, WorkloadShape shape, NodeState node) {
    if (!shape.chipTypes().accepts(chip.chip().model().name())) {
      return false;
    }
    VnpuSizer.Sized sized =
        VnpuSizer.size(
            chip,
            SplitMode.SOFT,
            shape.corePercent(),
            shape.memoryMiB(),
            shape.corePercent() == 0 ? AiCorePolicy.BEST_EFFORT : AiCorePolicy.ELASTIC,
            AiCpuLevel.LOW);
    return sized != null && chip.fits(sized.demand(), node.inventory().maxSharesPerChip());
  }

  @Provide
  Arbitrary<NodeState> nodes() {
    return Combinators.combine(
            Arbitraries.integers().between(1, 8),
            usages().list().ofMaxSize(12),
            Arbitraries.longs().between(0, 64_000))
        .as(FragmentationMeterProperties::node);
  }

  private static NodeState node(int chips, List<List<Integer>> uses, long cpu) {
    NodeState idle =
        NodeState.idle(
            Fixtures.node("n", "910B3", chips), new HostResources(64_000, 1 << 20), Fixtures.NOW);
    List<ChipState> states = new ArrayList<>(idle.chips());
    for (List<Integer> use : uses) {
      int position = use.get(0) % states.size();
      ChipDemand demand = new ChipDemand(use.get(1) * 1024L, use.get(2), 0, 0, false);
      if (states.get(position).fits(demand, 20)) {
        states.set(position, states.get(position).plus(demand));
      }
    }
    return idle.withChips(states, new HostResources(cpu, 1 << 20));
  }

  @Provide
  Arbitrary<List<Integer>> usages() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 7),
            Arbitraries.integers().between(0, 40),
            Arbitraries.of(0, 5, 10, 25, 50, 75, 100))
        .as(List::of);
  }

  @Provide
  Arbitrary<WorkloadMix> mixes() {
    Arbitrary<WorkloadShape> shape =
        Combinators.combine(
                Arbitraries.integers().between(0, 3),
                Arbitraries.of(0, 10, 25, 50, 100),
                Arbitraries.of(1, 4, 16, 32),
                Arbitraries.of("910B3", "310P3", "any"),
                Arbitraries.longs().between(0, 64_000))
            .as(
                (count, cores, memory, type, cpu) ->
                    new WorkloadShape(
                        count,
                        cores,
                        cores == 100 ? null : memory * 1024L,
                        type.equals("any") ? ChipTypes.ANY : ChipTypes.of(type),
                        cpu));
    return shape
        .list()
        .ofMinSize(1)
        .ofMaxSize(8)
        .map(shapes -> WorkloadMix.typical(shapes, 1.0, 1));
  }
}
