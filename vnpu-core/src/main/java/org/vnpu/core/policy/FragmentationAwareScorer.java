package org.vnpu.core.policy;

import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.Scorer;
import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;

/**
 * Least fragmentation growth first (the FGD paper's idea), measured against the context's mix of
 * request shapes, at full precision; among equal growth the fuller chip or node wins. The paper's
 * scheduler rounds its score to whole points and breaks ties at random, which throws away most of
 * the signal on a large cluster.
 */
final class FragmentationAwareScorer implements Scorer {

  /** Weight of fullness, small enough to only break ties in fragmentation growth. */
  private static final double TIE_BREAK = 1e-3;

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
    double fragmentation = context.fragmentation().fragmentationAfter(node, trial, hostAfter);
    return -fragmentation + TIE_BREAK * Utilization.of(trial[position]);
  }

  @Override
  public double nodeScore(
      NodeState before, ChipState[] after, HostResources hostAfter, PlacementContext context) {
    double growth =
        context.fragmentation().fragmentationAfter(before, after, hostAfter)
            - context.fragmentation().fragmentation(before);
    double score = 50 - 50 * Math.tanh(growth / 400) + TIE_BREAK * Utilization.of(after);
    return Math.max(0, Math.min(100, score));
  }
}
