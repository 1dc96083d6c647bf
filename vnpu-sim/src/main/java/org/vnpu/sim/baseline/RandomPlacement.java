package org.vnpu.sim.baseline;

import java.util.Random;
import org.vnpu.core.engine.ChipScorer;
import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.sim.SimPod;

/**
 * Random ({@code random_score.go}): a feasible node and a fitting GPU, uniformly at random. The
 * artifact draws the node in PreScore and scores only it; a random score per node is the same draw,
 * whatever the tie-breaking.
 */
final class RandomPlacement implements Baseline {

  private final Random random;

  RandomPlacement(Random random) {
    this.random = random;
  }

  @Override
  public ChipScorer chipScorer() {
    return (candidate, context) -> random.nextDouble();
  }

  @Override
  public long score(NodePlan plan, SimPod pod, PlacementContext context) {
    return random.nextLong();
  }
}
