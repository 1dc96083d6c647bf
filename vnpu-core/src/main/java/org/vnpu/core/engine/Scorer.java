package org.vnpu.core.engine;

import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;

/**
 * A placement policy: which chip a vNPU prefers, and how good a node is after a plan. Policies are
 * listed in one registry ({@code org.vnpu.core.policy.Policies}); the simulator adds the FGD
 * paper's baselines.
 */
public interface Scorer {

  /**
   * Preference (higher first) for giving one vNPU of {@code demand} the chip at {@code position} of
   * {@code working}, the node's chips with this pod's earlier vNPUs already placed.
   */
  double chipScore(
      NodeState node,
      ChipState[] working,
      int position,
      ChipDemand demand,
      HostResources hostAfter,
      PlacementContext context);

  /** How good the node is with {@code after} in place of its chips, on 0..100 (higher first). */
  double nodeScore(
      NodeState before, ChipState[] after, HostResources hostAfter, PlacementContext context);
}
