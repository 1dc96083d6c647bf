package org.vnpu.core.fragmentation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AiCpuLevel;
import org.vnpu.api.SplitMode;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.inventory.ChipSupply;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.ledger.NodeTable;
import org.vnpu.core.ledger.VnpuFit;
import org.vnpu.core.ledger.VnpuSizer;

/**
 * A node's fragmentation against a workload mix, in percent of one chip's compute: for each typical
 * shape, the free compute the shape cannot use on this node — all of it when the node cannot host
 * the shape (chip type, host CPU, too few chips with room), otherwise the free compute of the chips
 * too small for it — weighted by the shape's probability. Shapes without vNPUs count all free
 * compute as fragment, as in the paper.
 *
 * <p>A placement's {@linkplain #growth growth} adds a second, longer view: the node's {@linkplain
 * #stranded stranded} compute, which its free host CPU cannot feed at the CPU the mix asks per
 * percent of compute. The paper's measure sees host CPU only when the next pod would not fit; a
 * node whose CPU is eaten by CPU-hungry pods strands its chips long before that (ADR 0008). And a
 * third: the compute it takes from chips of a {@linkplain ScarceTypes scarce} type, one that the
 * mix's typed shapes seek more than the cluster has of it, so that pods that accept other types
 * leave it to the pods that accept only it (ADR 0024). The paper's measure counts a chip a shape
 * cannot use as fragment for it, but never says which shapes have nowhere else to go.
 *
 * <p>Evaluating a hypothetical placement costs one pass over the mix's distinct device shapes: with
 * each node state ({@link NodeState#derived}) the meter keeps, per shape, how many chips can host
 * it and their free compute, and updates only the chips a placement changes. Thread-safe.
 */
public final class FragmentationMeter {

  private final List<Group> groups;
  private final long[] cpuLevels;
  private final double[][] withinByLevel;
  private final double cpuMilliPerCompute;
  private final ScarceTypes scarce;
  private final Function<NodeState, Probe> newProbe = Probe::new;
  private final NodeTable.RowDeriver summarize = this::summarize;
  private final int summaryWidth;

  /**
   * Where a node's figures lie in its summary row of a {@link NodeTable} column ({@link
   * #summarize}), which the coarse bound reads for every node: its free compute, the compute its
   * host cannot feed, the least {@linkplain ScarceTypes scarcity} of its chips, then per CPU level
   * what the chip that keeps least, of those that take some vNPU, keeps.
   */
  private static final int TOTAL_FREE = 0;

  private static final int STRANDED = 1;
  private static final int LEAST_SCARCITY = 2;
  private static final int LEAST_KEPT = 3;

  /**
   * Staircase chips a row keeps per CPU level ({@link Probe#stairs}): enough that a bound almost
   * never walks the chips themselves (docs/benchmarks.md, "A table of what decisions read").
   */
  private static final int STAIRS = 3;

  /**
   * A row's staircase at one CPU level, in the column's detail array of that level: how many chips
   * are on it, and for the first {@link #STAIRS} of them what each keeps, its free memory and its
   * free AI Core percent.
   */
  private static final int STAIRS_WIDTH = 1 + 3 * STAIRS;

  public FragmentationMeter(WorkloadMix mix) {
    this(mix, ChipSupply.UNKNOWN);
  }

  public FragmentationMeter(WorkloadMix mix, ChipSupply supply) {
    this.groups = group(mix);
    this.scarce = ScarceTypes.of(mix, supply);
    this.cpuLevels =
        groups.stream().flatMapToLong(g -> Arrays.stream(g.cpu())).distinct().sorted().toArray();
    this.withinByLevel = new double[cpuLevels.length + 1][];
    for (int level = 0; level <= cpuLevels.length; level++) {
      long cpuFree = level == 0 ? -1 : cpuLevels[level - 1];
      withinByLevel[level] = new double[groups.size()];
      for (int g = 0; g < groups.size(); g++) {
        withinByLevel[level][g] = groups.get(g).probabilityWithin(cpuFree);
      }
    }
    this.cpuMilliPerCompute = cpuMilliPerCompute(mix);
    this.summaryWidth = LEAST_KEPT + withinByLevel.length;
  }

  /**
   * Host CPU the mix's pods with vNPUs ask per percent of chip compute they reserve, on average; 0
   * when they ask none (or reserve none), and then no compute is ever stranded.
   */
  private static double cpuMilliPerCompute(WorkloadMix mix) {
    double cpu = 0;
    double compute = 0;
    for (WorkloadMix.Weighted weighted : mix.shapes()) {
      WorkloadShape shape = weighted.shape();
      if (shape.count() > 0) {
        cpu += weighted.probability() * shape.cpuMilli();
        compute += weighted.probability() * shape.count() * shape.corePercent();
      }
    }
    return compute == 0 ? 0 : cpu / compute;
  }

  /** The scarce chip types this meter weighs placements by. */
  public ScarceTypes scarceTypes() {
    return scarce;
  }

  /** The scarcity of {@code chip}'s type. */
  private double scarcity(ChipState chip) {
    return scarce.of(chip.chip().model().name());
  }

  /**
   * The scarce compute a placement takes from the mix: the compute {@code chips} take from {@code
   * node}'s chips, each percent weighed by its chip type's {@link ScarceTypes scarcity}; 0 where
   * the mix seeks no type more than another.
   */
  public double scarceTaken(NodeState node, ChipState[] chips) {
    if (scarce.none()) {
      return 0;
    }
    double taken = 0;
    for (int c = 0; c < chips.length; c++) {
      ChipState before = node.chips().get(c);
      if (chips[c] != before) {
        taken += (before.freeComputePercent() - chips[c].freeComputePercent()) * scarcity(before);
      }
    }
    return taken;
  }

  /** The fragmentation of {@code node} as it is. */
  public double fragmentation(NodeState node) {
    return probe(node).fragmentation();
  }

  /** The fragmentation of {@code node} with its chips and host resources replaced. */
  public double fragmentationAfter(NodeState node, ChipState[] chips, HostResources hostFree) {
    return probe(node).after(chips, hostFree);
  }

  /**
   * What a placement costs the mix on {@code node}: the growth of its fragmentation plus the growth
   * of its stranded compute, with its chips and host resources replaced by {@code chips} and {@code
   * hostAfter}. The scarce compute it takes is apart ({@link #scarceTaken}).
   */
  public double growth(NodeState node, ChipState[] chips, HostResources hostAfter) {
    Probe probe = probe(node);
    double freeAfter = 0;
    for (ChipState chip : chips) {
      freeAfter += chip.freeComputePercent();
    }
    return probe.after(chips, hostAfter)
        - probe.fragmentation()
        + stranded(freeAfter, hostAfter)
        - stranded(probe.totalFree, node.hostFree());
  }

  /**
   * A lower bound of the {@link #growth} when one vNPU taking {@code computeTaken} percent goes on
   * a chip that {@code fits} accepts of the node in {@code row} of {@code nodes}. The vNPU takes
   * its compute from the free total, and from every shape that its chip hosts and that stays usable
   * on the node (as another chip hosts it too); nothing the placement does raises what any shape
   * can use. Where the room decides, the node's row in the table answers from the level's
   * staircase; otherwise, or when the staircase is longer than the row keeps, the chips are walked
   * in the order of what they keep.
   */
  public double leastGrowth(
      NodeTable nodes, int row, double computeTaken, VnpuFit fits, HostResources hostAfter) {
    NodeTable.Column column = column(nodes, row);
    double growth =
        fits.roomDecides()
            ? onStairs(
                column.detail(level(hostAfter.cpuMilli())), row * STAIRS_WIDTH, computeTaken, fits)
            : Double.NaN;
    if (Double.isNaN(growth)) {
      growth = probe(nodes.node(row)).leastGrowth(computeTaken, fits, hostAfter);
    }
    return growth + strandedGrowth(column.summary(), row, computeTaken, hostAfter);
  }

  /**
   * The least growth from the staircase block at {@code at}: what the first chip on it with room
   * for the vNPU keeps, as walking every chip in order would find (a chip off the staircase has no
   * room that an earlier chip lacks); the fall of the whole compute taken when no chip has room;
   * NaN when the staircase goes on beyond what the block keeps.
   */
  private static double onStairs(double[] values, int at, double computeTaken, VnpuFit fits) {
    int stairs = (int) values[at];
    for (int s = 0; s < Math.min(stairs, STAIRS); s++) {
      int chip = at + 1 + 3 * s;
      if (fits.roomFor((long) values[chip + 1], (int) values[chip + 2])) {
        return -computeTaken * (1 - values[chip]);
      }
    }
    return stairs <= STAIRS ? -computeTaken : Double.NaN;
  }

  /** The meter's column of {@code nodes}, with {@code row} derived. */
  private NodeTable.Column column(NodeTable nodes, int row) {
    NodeTable.Column column =
        nodes.column(this, summaryWidth, withinByLevel.length, STAIRS_WIDTH, summarize);
    column.refresh(row);
    return column;
  }

  /**
   * A lower bound of the {@link #growth} when one vNPU taking {@code computeTaken} percent goes on
   * any chip that takes some vNPU of the node in {@code row} of {@code nodes}: {@link
   * #leastGrowth(NodeTable, int, double, VnpuFit, HostResources)} with the chip that keeps the
   * least of the mix, whether or not it takes this vNPU, so that only the node's row in the table
   * is read (at most that bound where some chip takes the vNPU).
   */
  public double leastGrowthOnAnyChip(
      NodeTable nodes, int row, double computeTaken, HostResources hostAfter) {
    double[] summary = column(nodes, row).summary();
    return -computeTaken
            * (1 - summary[row * summaryWidth + LEAST_KEPT + level(hostAfter.cpuMilli())])
        + strandedGrowth(summary, row, computeTaken, hostAfter);
  }

  /**
   * A lower bound of the {@link #growth} when vNPUs taking {@code computeTaken} percent in all go
   * on any chips of the node in {@code row} of {@code nodes}: fragmentation falls at most by the
   * compute taken.
   */
  public double leastGrowth(
      NodeTable nodes, int row, double computeTaken, HostResources hostAfter) {
    return -computeTaken
        + strandedGrowth(column(nodes, row).summary(), row, computeTaken, hostAfter);
  }

  /**
   * The free compute that {@code hostFree}'s CPU cannot feed, of {@code freeCompute} percent of
   * chip compute: the mix asks {@link #cpuMilliPerCompute} per percent, so what is left beyond the
   * CPU's reach stays idle however the mix arrives.
   */
  public double stranded(double freeCompute, HostResources hostFree) {
    if (cpuMilliPerCompute == 0) {
      return 0;
    }
    return Math.max(0, freeCompute - Math.max(0, hostFree.cpuMilli()) / cpuMilliPerCompute);
  }

  /**
   * The growth of stranded compute when a placement takes at most {@code computeTaken} percent of
   * the node's free compute and leaves {@code hostAfter}: taking more strands less, so this is the
   * least growth of any such placement.
   */
  private double strandedGrowth(
      double[] summary, int row, double computeTaken, HostResources hostAfter) {
    int at = row * summaryWidth;
    return stranded(summary[at + TOTAL_FREE] - computeTaken, hostAfter) - summary[at + STRANDED];
  }

  /**
   * The least {@link #scarceTaken} when a placement takes {@code computeTaken} percent of compute
   * from the node in {@code row} of {@code nodes}: all of it from the node's least scarce chips (a
   * plan of the engine takes the compute its vNPUs reserve in full, {@code PlanLimits}).
   */
  public double leastScarceTaken(NodeTable nodes, int row, double computeTaken) {
    if (scarce.none()) {
      return 0;
    }
    return computeTaken * column(nodes, row).summary()[row * summaryWidth + LEAST_SCARCITY];
  }

  /**
   * Writes {@code node}'s row of a table column: its summary (see {@link #TOTAL_FREE}) and its
   * staircase at each CPU level (see {@link #STAIRS_WIDTH}).
   */
  private void summarize(
      NodeState node, double[] summary, int summaryAt, double[][] stairs, int stairsAt) {
    Probe probe = probe(node);
    summary[summaryAt + TOTAL_FREE] = probe.totalFree;
    summary[summaryAt + STRANDED] = stranded(probe.totalFree, node.hostFree());
    double leastScarcity = node.chips().isEmpty() ? 0 : Double.POSITIVE_INFINITY;
    for (ChipState chip : node.chips()) {
      leastScarcity = Math.min(leastScarcity, scarcity(chip));
    }
    summary[summaryAt + LEAST_SCARCITY] = leastScarcity;
    for (int level = 0; level < withinByLevel.length; level++) {
      probe.stairs(level, stairs[level], stairsAt);
      summary[summaryAt + LEAST_KEPT + level] = stairs[level][stairsAt + 1];
    }
  }

  private Probe probe(NodeState node) {
    return node.derived(this, newProbe);
  }

  /**
   * How many of the shapes' distinct host CPU needs {@code cpuFree} covers: nodes with as much CPU
   * left at one level host the same shapes.
   */
  private int level(long cpuFree) {
    int i = Arrays.binarySearch(cpuLevels, cpuFree);
    return i >= 0 ? i + 1 : -i - 1;
  }

  /** Per group, the probability that a shape of it needs at most {@code cpuFree} host CPU. */
  private double[] within(long cpuFree) {
    return withinByLevel[level(cpuFree)];
  }

  /** Shapes that need the same chips, with their host CPU needs sorted and probabilities summed. */
  private record Group(
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
  }

  private static List<Group> group(WorkloadMix mix) {
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
    List<Group> groups = new ArrayList<>();
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
              new Group(
                  key.count(),
                  key.corePercent(),
                  key.memoryMiB(),
                  key.chipTypes(),
                  cpu,
                  cumulative));
        });
    return List.copyOf(groups);
  }

  /**
   * Per-shape aggregates of one node state, and what the bounds ask of it on every decision in
   * primitive arrays, so that a bound reads a few arrays instead of the node's chip objects.
   */
  private final class Probe implements NodeState.Derived {
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

    Probe(NodeState node) {
      this.node = node;
      chips = node.chips().size();
      int levels = withinByLevel.length;
      // What the bounds read, allocated first so that it lies beside the probe in memory.
      chipsByKept = new int[levels * chips];
      chipFreeMemory = new long[chips];
      chipFreeCore = new int[chips];
      keptByLevel = new double[levels * chips];
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
      for (int level = 0; level < levels; level++) {
        int row = level * chips;
        for (int c = 0; c < chips; c++) {
          keptByLevel[row + c] = kept(c, withinByLevel[level]);
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
     * that take some vNPU, in the order of what they keep, those that no chip before them matches
     * in both free memory and free AI Core (a chip so matched is never the first with room); its
     * length, then what each of the first {@link #STAIRS} keeps, its free memory and its free AI
     * Core. Where no chip takes a vNPU, the length is 0 and the first entry keeps what the chip
     * that keeps least keeps (infinite without chips), with -1 for both.
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
      return FragmentationMeter.this;
    }

    /** Whether chip {@code c} as it is hosts a shape of group {@code g}. */
    private boolean hosts(int c, int g) {
      return hosts[c * hostCount.length + g];
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
      int row = level(hostAfter.cpuMilli()) * chips;
      for (int k = row; k < row + chips; k++) {
        int c = chipsByKept[k];
        if (fits.roomFor(chipFreeMemory[c], chipFreeCore[c])
            && (fits.roomDecides() || fits.test().test(node, node.chips().get(c)))) {
          return -computeTaken * (1 - keptByLevel[row + c]);
        }
      }
      return -computeTaken;
    }

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
      double[] within = within(host.cpuMilli());
      double usable = 0;
      for (int g = 0; g < count.length; g++) {
        if (count[g] >= groups.get(g).count()) {
          usable += within[g] * free[g];
        }
      }
      return total - usable;
    }
  }
}
