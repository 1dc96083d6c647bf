package org.vnpu.sim.baseline;

import org.vnpu.core.engine.ChipScorer;
import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.sim.SimPod;

/**
 * FGD as the paper's artifact scores it ({@code fgd_score.go}): ⌊sigmoid(fragmentation decrease /
 * 1000 GPU milli) × 100⌋ for the node, choosing the GPU with the highest such score (the first on
 * ties). Our {@code fragmentation-aware} policy builds on the same measure.
 */
final class Fgd implements Baseline {

  @Override
  public ChipScorer chipScorer() {
    return (candidate, context) ->
        paperScore(candidate.node(), candidate.chipsAfter(), candidate.hostAfter(), context);
  }

  @Override
  public long score(NodePlan plan, SimPod pod, PlacementContext context) {
    return paperScore(plan.node(), plan.chipsAfter(), plan.hostAfter(), context);
  }

  /** Fragmentation is in percent of a chip; the paper divides GPU milli by 1000. */
  private static long paperScore(
      NodeState node, ChipState[] after, HostResources hostAfter, PlacementContext context) {
    double before = context.fragmentation().fragmentation(node);
    double decrease = before - context.fragmentation().fragmentationAfter(node, after, hostAfter);
    return (long) (NodeFigures.sigmoid(decrease / 100) * 100);
  }
}
