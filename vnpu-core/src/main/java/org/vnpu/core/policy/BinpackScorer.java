package org.vnpu.core.policy;

import org.vnpu.core.engine.ChipCandidate;
import org.vnpu.core.engine.ChipScorer;
import org.vnpu.core.engine.NodeScorer;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.PlanLimits;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.ledger.Utilization;

/** Fullest first: keeps empty chips and nodes free for large requests. */
final class BinpackScorer implements NodeScorer, ChipScorer {

  @Override
  public double score(ChipCandidate candidate, PlacementContext context) {
    return Utilization.of(candidate.chipAfter());
  }

  @Override
  public double score(
      NodeState before, ChipState[] after, HostResources hostAfter, PlacementContext context) {
    return Utilization.of(after);
  }

  @Override
  public double bound(PlanLimits limits, PlacementContext context) {
    return limits.utilizationBefore() + limits.maxUtilizationGain();
  }
}
