package org.vnpu.core.policy;

import org.vnpu.core.engine.ChipCandidate;
import org.vnpu.core.engine.ChipScorer;
import org.vnpu.core.engine.NodeScorer;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.PlanLimits;
import org.vnpu.core.fragmentation.FragmentationMeter;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.ledger.Utilization;

/**
 * Least growth first, measured against the context's mix of request shapes: the growth of the
 * fragmentation after the FGD paper plus the compute the node's host CPU can no longer feed ({@link
 * FragmentationMeter#growth}), in the same steps for a node's chips and for nodes, and at node
 * level plus the compute it takes from chips of a type the mix seeks more than others ({@link
 * FragmentationMeter#scarceTaken}). Among placements whose growth differs by less than {@link
 * #GROWTH_STEP}, the fuller chip or node wins, so that nearly-equal choices pack instead of
 * scattering; between equally full ones, the less growth.
 */
final class FragmentationAwareScorer implements NodeScorer, ChipScorer {

  /**
   * Fragmentation growth is compared in steps of this many percent of one chip, so that placements
   * within a step count as equal and the fuller candidate wins. Measured on the openb default trace
   * (docs/benchmarks.md): with stranded compute, steps of 0, 4, 8 and 16 leave 4.27, 4.21, 4.25 and
   * 4.24 % unallocated (8 is best on gpushare40); without it the step mattered by a point (exact
   * comparison 5.8 %, steps of 8 4.9 %).
   */
  static final double GROWTH_STEP = 8;

  /** Weight of fullness, small enough to only break ties in fragmentation growth. */
  private static final double TIE_BREAK = 1e-3;

  /**
   * Weight of the exact growth, smaller still: between equally full candidates whose growth falls
   * in one step, the one that grows less wins, so that a pod leaves a chip of a scarce type to the
   * pods that need it even where the compute it takes is small.
   */
  private static final double EXACT_TIE_BREAK = 1e-7;

  /**
   * The growth part of a node's score, 0..100 (less growth higher), per whole number of growth
   * steps from {@code -STEPS_TABULATED} to {@code STEPS_TABULATED}: every node bound asks for it,
   * and a table is cheaper than {@code tanh}.
   */
  private static final double[] GROWTH_SCORES;

  private static final int STEPS_TABULATED = 200;

  /**
   * How far below a bound's least growth a plan's growth may come out by rounding alone: the meter
   * sums a plan's growth over the mix's weights (thirds, sevenths), so a plan exactly on a half
   * step may sum to a hair below it and round to one step less, above a bound that rounds the half
   * step itself the other way. Far above the rounding of sums of a few hundred percent, far below
   * any growth that matters.
   */
  private static final double ROUNDING_ALLOWANCE = 1e-6;

  static {
    GROWTH_SCORES = new double[2 * STEPS_TABULATED + 1];
    for (int k = -STEPS_TABULATED; k <= STEPS_TABULATED; k++) {
      GROWTH_SCORES[k + STEPS_TABULATED] = growthScore(k * GROWTH_STEP);
    }
  }

  private static long steps(double growth) {
    return Math.round(growth / GROWTH_STEP);
  }

  private static double quantize(double growth) {
    return steps(growth) * GROWTH_STEP;
  }

  /** The growth part of a node's score for a cost in percent of one chip, 0..100. */
  private static double growthScore(double cost) {
    return 50 - 50 * Math.tanh(cost / 400);
  }

  @Override
  public double score(ChipCandidate candidate, PlacementContext context) {
    ChipState[] trial = candidate.chipsAfter();
    double growth = context.fragmentation().growth(candidate.node(), trial, candidate.hostAfter());
    return -quantize(growth) + TIE_BREAK * Utilization.of(trial[candidate.position()]);
  }

  @Override
  public double score(
      NodeState before, ChipState[] after, HostResources hostAfter, PlacementContext context) {
    FragmentationMeter meter = context.fragmentation();
    return nodeScore(
        meter.growth(before, after, hostAfter),
        meter.scarceTaken(before, after),
        Utilization.of(after));
  }

  /**
   * A placement never raises what the mix can use, so fragmentation falls at most by the free
   * compute the pod takes, and by less where the chips that could take a one-vNPU pod serve the
   * mix; the stranded compute follows from the compute taken and the host left ({@link
   * FragmentationMeter#leastGrowth}).
   */
  @Override
  public double bound(PlanLimits limits, PlacementContext context) {
    FragmentationMeter meter = context.fragmentation();
    double leastGrowth =
        limits.onlyVnpuFits() == null
            ? meter.leastGrowth(
                limits.nodes(), limits.row(), limits.maxComputeTaken(), limits.hostAfter())
            : meter.leastGrowth(
                limits.nodes(),
                limits.row(),
                limits.maxComputeTaken(),
                limits.onlyVnpuFits(),
                limits.hostAfter());
    return boundScore(leastGrowth, limits, meter);
  }

  /**
   * For a pod of one vNPU, {@link #bound} with the least growth of any chip rather than of the
   * chips that take the vNPU ({@link FragmentationMeter#leastGrowthOnAnyChip}): it reads none of
   * the node's chips, only the meter's per-node summary. A lower growth gives a higher score, so it
   * is above the bound wherever a chip takes the vNPU.
   */
  @Override
  public double coarseBound(PlanLimits limits, PlacementContext context) {
    if (limits.onlyVnpuFits() == null) {
      return Double.POSITIVE_INFINITY; // the bound reads no chip either
    }
    FragmentationMeter meter = context.fragmentation();
    return boundScore(
        meter.leastGrowthOnAnyChip(
            limits.nodes(), limits.row(), limits.maxComputeTaken(), limits.hostAfter()),
        limits,
        meter);
  }

  /**
   * The score of a node whose placements grow at least {@code leastGrowth} (less {@link
   * #ROUNDING_ALLOWANCE}), take the least scarce compute and raise its utilization the most.
   */
  private static double boundScore(
      double leastGrowth, PlanLimits limits, FragmentationMeter meter) {
    return nodeScore(
        leastGrowth - ROUNDING_ALLOWANCE,
        meter.leastScarceTaken(limits.nodes(), limits.row(), limits.maxComputeTaken()),
        limits.utilizationBefore() + limits.maxUtilizationGain());
  }

  /**
   * A node's score from its growth in whole steps and the scarce compute it takes as it is (a pod
   * that accepts other types leaves a scarce one however little it takes), then fullness, then the
   * exact growth.
   */
  private static double nodeScore(double growth, double scarceTaken, double utilizationAfter) {
    long steps = steps(growth);
    double score =
        (scarceTaken == 0 && Math.abs(steps) <= STEPS_TABULATED
                ? GROWTH_SCORES[(int) steps + STEPS_TABULATED]
                : growthScore(steps * GROWTH_STEP + scarceTaken))
            + TIE_BREAK * utilizationAfter
            - EXACT_TIE_BREAK * (growth + scarceTaken);
    return Math.max(0, Math.min(100, score));
  }
}
