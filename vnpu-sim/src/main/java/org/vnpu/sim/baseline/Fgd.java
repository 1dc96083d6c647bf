package org.vnpu.sim.baseline;

import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.Scorer;
import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.sim.SimPod;

/**
 * FGD as the paper's artifact scores it ({@code fgd_score.go}): ⌊sigmoid(fragmentation decrease /
 * 1000 GPU milli) × 100⌋ for the node, choosing the GPU with the highest such score (the first on
 * ties). Our {@code fragmentation-aware} policy is the same idea at full precision.
 */
final class Fgd implements Baseline {

  private final Scorer chips =
      new Scorer() {
        @Override
        public double chipScore(
            NodeState node,
            ChipState[] working,
            int position,
            ChipDemand demand,
            HostResources hostAfter,
            PlacementContext context) {
          ChipState[] trial = working.clone();
          trial[position] = working[position].plus(demand);
          return paperScore(node, trial, hostAfter, context);
        }

        @Override
        public double nodeScore(
            NodeState before,
            ChipState[] after,
            HostResources hostAfter,
            PlacementContext context) {
          return 0;
        }
      };

  @Override
  public Scorer chipScorer() {
    return chips;
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
