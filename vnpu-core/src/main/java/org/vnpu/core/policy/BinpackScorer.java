package org.vnpu.core.policy;

import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.Scorer;
import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;

/** Fullest first: keeps empty chips and nodes free for large requests. */
final class BinpackScorer implements Scorer {

  @Override
  public double chipScore(
      NodeState node,
      ChipState[] working,
      int position,
      ChipDemand demand,
      HostResources hostAfter,
      PlacementContext context) {
    return Utilization.of(working[position].plus(demand));
  }

  @Override
  public double nodeScore(
      NodeState before, ChipState[] after, HostResources hostAfter, PlacementContext context) {
    return Utilization.of(after);
  }
}
