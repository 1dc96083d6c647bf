package org.vnpu.core.fragmentation;

import java.util.List;
import java.util.function.Function;
import org.vnpu.core.inventory.ChipSupply;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.ledger.NodeTable;
import org.vnpu.core.ledger.VnpuFit;

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

  private final List<ShapeGroup> groups;
  private final CpuLevels levels;
  private final double cpuMilliPerCompute;
  private final ScarceTypes scarce;
  private final Function<NodeState, NodeProbe> newProbe;
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
   * A row's staircase at one CPU level, in the column's detail array of that level: how many chips
   * are on it, and for the first {@link NodeProbe#STAIRS} of them what each keeps, its free memory
   * and its free AI Core percent.
   */
  private static final int STAIRS_WIDTH = 1 + 3 * NodeProbe.STAIRS;

  public FragmentationMeter(WorkloadMix mix) {
    this(mix, ChipSupply.UNKNOWN);
  }

  public FragmentationMeter(WorkloadMix mix, ChipSupply supply) {
    this.groups = ShapeGroup.of(mix);
    this.scarce = ScarceTypes.of(mix, supply);
    this.levels = new CpuLevels(groups);
    this.newProbe = node -> new NodeProbe(this, node, groups, levels);
    this.cpuMilliPerCompute = cpuMilliPerCompute(mix);
    this.summaryWidth = LEAST_KEPT + levels.count();
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
    NodeProbe probe = probe(node);
    double freeAfter = 0;
    for (ChipState chip : chips) {
      freeAfter += chip.freeComputePercent();
    }
    return probe.after(chips, hostAfter)
        - probe.fragmentation()
        + stranded(freeAfter, hostAfter)
        - stranded(probe.totalFree(), node.hostFree());
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
                column.detail(levels.level(hostAfter.cpuMilli())),
                row * STAIRS_WIDTH,
                computeTaken,
                fits)
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
    for (int s = 0; s < Math.min(stairs, NodeProbe.STAIRS); s++) {
      int chip = at + 1 + 3 * s;
      if (fits.roomFor((long) values[chip + 1], (int) values[chip + 2])) {
        return -computeTaken * (1 - values[chip]);
      }
    }
    return stairs <= NodeProbe.STAIRS ? -computeTaken : Double.NaN;
  }

  /** The meter's column of {@code nodes}, with {@code row} derived. */
  private NodeTable.Column column(NodeTable nodes, int row) {
    NodeTable.Column column =
        nodes.column(this, summaryWidth, levels.count(), STAIRS_WIDTH, summarize);
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
            * (1 - summary[row * summaryWidth + LEAST_KEPT + levels.level(hostAfter.cpuMilli())])
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
    NodeProbe probe = probe(node);
    summary[summaryAt + TOTAL_FREE] = probe.totalFree();
    summary[summaryAt + STRANDED] = stranded(probe.totalFree(), node.hostFree());
    double leastScarcity = node.chips().isEmpty() ? 0 : Double.POSITIVE_INFINITY;
    for (ChipState chip : node.chips()) {
      leastScarcity = Math.min(leastScarcity, scarcity(chip));
    }
    summary[summaryAt + LEAST_SCARCITY] = leastScarcity;
    for (int level = 0; level < levels.count(); level++) {
      probe.stairs(level, stairs[level], stairsAt);
      summary[summaryAt + LEAST_KEPT + level] = stairs[level][stairsAt + 1];
    }
  }

  private NodeProbe probe(NodeState node) {
    return node.derived(this, newProbe);
  }
}
