package org.vnpu.sim.baseline;

import java.util.Random;
import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.Scorer;
import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.sim.SimPod;

/**
 * Random ({@code random_score.go}): a feasible node and a fitting GPU, uniformly at random. The
 * artifact draws the node in PreScore and scores only it; a random score per node is the same draw,
 * whatever the tie-breaking.
 */
final class RandomPlacement implements Baseline {

  private final Scorer chips;
  private final Random random;

  RandomPlacement(Random random) {
    this.random = random;
    this.chips =
        new Scorer() {
          @Override
          public double chipScore(
              NodeState node,
              ChipState[] working,
              int position,
              ChipDemand demand,
              HostResources hostAfter,
              PlacementContext context) {
            return random.nextDouble();
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
  }

  @Override
  public Scorer chipScorer() {
    return chips;
  }

  @Override
  public long score(NodePlan plan, SimPod pod, PlacementContext context) {
    return random.nextLong();
  }
}
