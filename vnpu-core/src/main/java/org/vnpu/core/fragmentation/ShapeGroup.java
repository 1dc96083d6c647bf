package org.vnpu.core.fragmentation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AiCpuLevel;
import org.vnpu.api.SplitMode;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.ledger.VnpuSizer;

/**
 * Shapes of a mix that need the same chips, with their host CPU needs sorted and probabilities
 * summed.
 */
record ShapeGroup(
    int count,
    int corePercent,
    Long memoryMiB,
    ChipTypes chipTypes,
    long[] cpu,
    double[] cumulative) {

  /**
   * Probability that a shape of this group needs at most {@code cpuFree} host CPU ({@code cpu}
   * holds distinct values, ascending).
   */
  double probabilityWithin(long cpuFree) {
    int i = Arrays.binarySearch(cpu, cpuFree);
    int last = i >= 0 ? i : -i - 2;
    return last < 0 ? 0 : cumulative[last];
  }

  /** Whether chip {@code state} of {@code node} has room for one vNPU of the group's shape. */
  boolean hosts(ChipState state, NodeState node) {
    if (!state.chip().healthy() || !chipTypes.accepts(state.chip().model().name())) {
      return false;
    }
    int maxShares = node.inventory().maxSharesPerChip();
    if (node.inventory().splitMode() == SplitMode.SOFT) {
      return corePercent == 100
          ? state.fitsWholeCard()
          : state.fitsShare(
              memoryMiB == null ? state.chip().memoryMiB() : memoryMiB, corePercent, maxShares);
    }
    AiCorePolicy policy = corePercent == 0 ? AiCorePolicy.BEST_EFFORT : AiCorePolicy.ELASTIC;
    VnpuSizer.Sized sized =
        VnpuSizer.size(
            state, node.inventory().splitMode(), corePercent, memoryMiB, policy, AiCpuLevel.LOW);
    return sized != null && state.fits(sized.demand(), maxShares);
  }

  /** The groups of {@code mix}'s shapes with vNPUs, in the order the mix names them first. */
  static List<ShapeGroup> of(WorkloadMix mix) {
    record Key(int count, int corePercent, Long memoryMiB, ChipTypes chipTypes) {}
    Map<Key, List<WorkloadMix.Weighted>> byKey = new LinkedHashMap<>();
    for (WorkloadMix.Weighted weighted : mix.shapes()) {
      WorkloadShape s = weighted.shape();
      if (s.count() > 0) {
        byKey
            .computeIfAbsent(
                new Key(s.count(), s.corePercent(), s.memoryMiB(), s.chipTypes()),
                k -> new ArrayList<>())
            .add(weighted);
      }
    }
    List<ShapeGroup> groups = new ArrayList<>();
    byKey.forEach(
        (key, members) -> {
          members.sort((a, b) -> Long.compare(a.shape().cpuMilli(), b.shape().cpuMilli()));
          long[] cpu = new long[members.size()];
          double[] cumulative = new double[members.size()];
          double sum = 0;
          for (int i = 0; i < cpu.length; i++) {
            cpu[i] = members.get(i).shape().cpuMilli();
            sum += members.get(i).probability();
            cumulative[i] = sum;
          }
          groups.add(
              new ShapeGroup(
                  key.count(),
                  key.corePercent(),
                  key.memoryMiB(),
                  key.chipTypes(),
                  cpu,
                  cumulative));
        });
    return List.copyOf(groups);
  }
}
