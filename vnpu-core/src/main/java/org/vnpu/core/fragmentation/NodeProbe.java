package org.vnpu.core.fragmentation;

import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.ledger.VnpuFit;

/**
 * A {@link FragmentationMeter}'s per-shape aggregates of one node state, and what the bounds ask of
 * it on every decision in primitive arrays, so that a bound reads a few arrays instead of the
 * node's chip objects. The node state keeps it ({@link NodeState#derived}).
 */
final class NodeProbe implements NodeState.Derived {

  /**
   * Staircase chips a row keeps per CPU level ({@link #stairs}): enough that a bound almost never
   * walks the chips themselves (docs/benchmarks.md, "A table of what decisions read").
   */
  static final int STAIRS = 3;

  private final Object owner;
  private final List<ShapeGroup> groups;
  private final CpuLevels levels;
  private final NodeState node;
  private final int chips;
  private final boolean[] hosts; // [chip * groups + group], flat: one object per node
  private final int[] hostCount;
  private final double[] hostFree;
  private final double totalFree;
  private final long[] chipFreeMemory; // [chip]; -1 where no vNPU goes
  private final int[] chipFreeCore; // [chip]; -1 where no vNPU goes
  private final double[] keptByLevel; // [CPU level * chips + chip], flat: one object to read
  private final int[] chipsByKept; // [CPU level * chips + k]: per level, the least kept first
  private volatile double fragmentation = Double.NaN; // worked out on first use

  NodeProbe(Object owner, NodeState node, List<ShapeGroup> groups, CpuLevels levels) {
    this.owner = owner;
    this.groups = groups;
    this.levels = levels;
    this.node = node;
    chips = node.chips().size();
    int levelCount = levels.count();
    // What the bounds read, allocated first so that it lies beside the probe in memory.
    chipsByKept = new int[levelCount * chips];
    chipFreeMemory = new long[chips];
    chipFreeCore = new int[chips];
    keptByLevel = new double[levelCount * chips];
    hosts = new boolean[chips * groups.size()];
    hostCount = new int[groups.size()];
    hostFree = new double[groups.size()];
    double total = 0;
    for (int c = 0; c < chips; c++) {
      ChipState state = node.chips().get(c);
      boolean takesNone = state.takesNoVnpu(node.inventory().maxSharesPerChip());
      chipFreeMemory[c] = takesNone ? -1 : state.freeMemoryMiB();
      chipFreeCore[c] = takesNone ? -1 : state.freeCorePercent();
      double free = state.freeComputePercent();
      total += free;
      for (int g = 0; g < hostCount.length; g++) {
        boolean hostsGroup = groups.get(g).hosts(state, node);
        hosts[c * hostCount.length + g] = hostsGroup;
        if (hostsGroup) {
          hostCount[g]++;
          hostFree[g] += free;
        }
      }
    }
    totalFree = total;
    for (int level = 0; level < levelCount; level++) {
      int row = level * chips;
      for (int c = 0; c < chips; c++) {
        keptByLevel[row + c] = kept(c, levels.atLevel(level));
      }
      int[] order =
          IntStream.range(0, chips)
              .boxed()
              .sorted(Comparator.comparingDouble(c -> keptByLevel[row + c]))
              .mapToInt(Integer::intValue)
              .toArray();
      System.arraycopy(order, 0, chipsByKept, row, chips);
    }
  }

  /**
   * Writes the staircase of CPU {@code level} into {@code values} from {@code at}: of the chips
   * that take some vNPU, in the order of what they keep, those that no chip before them matches in
   * both free memory and free AI Core (a chip so matched is never the first with room); its length,
   * then what each of the first {@link #STAIRS} keeps, its free memory and its free AI Core. Where
   * no chip takes a vNPU, the length is 0 and the first entry keeps what the chip that keeps least
   * keeps (infinite without chips), with -1 for both.
   */
  void stairs(int level, double[] values, int at) {
    int row = level * chips;
    values[at + 1] = chips == 0 ? Double.POSITIVE_INFINITY : keptByLevel[row + chipsByKept[row]];
    values[at + 2] = -1;
    values[at + 3] = -1;
    int stairs = 0;
    for (int k = row; k < row + chips; k++) {
      int c = chipsByKept[k];
      if (chipFreeMemory[c] < 0 || matchedBefore(row, k)) {
        continue;
      }
      if (stairs < STAIRS) {
        int entry = at + 1 + 3 * stairs;
        values[entry] = keptByLevel[row + c];
        values[entry + 1] = chipFreeMemory[c];
        values[entry + 2] = chipFreeCore[c];
      }
      stairs++;
    }
    values[at] = stairs;
  }

  /**
   * Whether a chip before position {@code k} of the order that starts at {@code row} has at least
   * the free memory and AI Core of the chip at {@code k}.
   */
  private boolean matchedBefore(int row, int k) {
    int c = chipsByKept[k];
    for (int j = row; j < k; j++) {
      int earlier = chipsByKept[j];
      if (chipFreeMemory[earlier] >= chipFreeMemory[c]
          && chipFreeCore[earlier] >= chipFreeCore[c]) {
        return true;
      }
    }
    return false;
  }

  /**
   * The probability of the shapes that chip {@code c} hosts and that another chip hosts too, with
   * {@code within} the probability, per group, that a shape fits the host CPU left.
   */
  private double kept(int c, double[] within) {
    double kept = 0;
    for (int g = 0; g < hostCount.length; g++) {
      if (hosts(c, g) && hostCount[g] > groups.get(g).count()) {
        kept += within[g];
      }
    }
    return kept;
  }

  @Override
  public Object owner() {
    return owner;
  }

  /** Whether chip {@code c} as it is hosts a shape of group {@code g}. */
  private boolean hosts(int c, int g) {
    return hosts[c * hostCount.length + g];
  }

  /** The free compute of the node's chips, in percent of one chip. */
  double totalFree() {
    return totalFree;
  }

  double fragmentation() {
    double value = fragmentation;
    if (Double.isNaN(value)) {
      value = value(hostCount, hostFree, totalFree, node.hostFree());
      fragmentation = value;
    }
    return value;
  }

  /**
   * The least growth over the chips that {@code fits} accepts: the first of them in the order of
   * what they keep, chips without room for the vNPU, or that take no vNPU, passed over unread;
   * where the room decides, no chip is read at all.
   */
  double leastGrowth(double computeTaken, VnpuFit fits, HostResources hostAfter) {
    int row = levels.level(hostAfter.cpuMilli()) * chips;
    for (int k = row; k < row + chips; k++) {
      int c = chipsByKept[k];
      if (fits.roomFor(chipFreeMemory[c], chipFreeCore[c])
          && (fits.roomDecides() || fits.test().test(node, node.chips().get(c)))) {
        return -computeTaken * (1 - keptByLevel[row + c]);
      }
    }
    return -computeTaken;
  }

  /** The fragmentation with the node's chips and host resources replaced. */
  double after(ChipState[] chips, HostResources hostAfter) {
    int[] count = hostCount.clone();
    double[] free = hostFree.clone();
    double total = totalFree;
    for (int c = 0; c < chips.length; c++) {
      ChipState before = node.chips().get(c);
      if (chips[c] == before) {
        continue;
      }
      double freeBefore = before.freeComputePercent();
      double freeAfter = chips[c].freeComputePercent();
      total += freeAfter - freeBefore;
      for (int g = 0; g < count.length; g++) {
        if (hosts(c, g)) {
          count[g]--;
          free[g] -= freeBefore;
        }
        if (groups.get(g).hosts(chips[c], node)) {
          count[g]++;
          free[g] += freeAfter;
        }
      }
    }
    return value(count, free, total, hostAfter);
  }

  private double value(int[] count, double[] free, double total, HostResources host) {
    double[] within = levels.within(host.cpuMilli());
    double usable = 0;
    for (int g = 0; g < count.length; g++) {
      if (count[g] >= groups.get(g).count()) {
        usable += within[g] * free[g];
      }
    }
    return total - usable;
  }
}
