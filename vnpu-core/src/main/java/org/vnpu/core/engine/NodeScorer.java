package org.vnpu.core.engine;

import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;

/** A node-level policy: how good a node is with a pod's plan applied, on 0..100 (higher first). */
@FunctionalInterface
public interface NodeScorer {

  double score(
      NodeState before, ChipState[] after, HostResources hostAfter, PlacementContext context);

  /**
   * A score that no plan within {@code limits} exceeds, so that a node whose bound is below the
   * best score found so far need not be planned. Without a bound every node is planned.
   */
  default double bound(PlanLimits limits, PlacementContext context) {
    return Double.POSITIVE_INFINITY;
  }

  /**
   * A score no plan within {@code limits} exceeds on a node where the pod fits at all, that costs
   * less to work out than {@link #bound} because it reads less of the node: the engine asks it
   * first and works out the bound only when this one does not rule the node out. On a node where
   * the pod fits nowhere it may be below the bound (such a node is never chosen). Without one
   * ({@code +∞}) the bound is always worked out.
   */
  default double coarseBound(PlanLimits limits, PlacementContext context) {
    return Double.POSITIVE_INFINITY;
  }
}
