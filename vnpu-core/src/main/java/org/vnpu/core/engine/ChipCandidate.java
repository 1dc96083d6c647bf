package org.vnpu.core.engine;

import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;

/**
 * One vNPU that could go on one chip of a node.
 *
 * @param node the node as it is
 * @param working the node's chips with this pod's earlier vNPUs already placed
 * @param position the candidate chip's position in {@code working}
 * @param demand what the vNPU takes from the chip
 * @param hostAfter the node's free host resources with the pod placed
 */
public record ChipCandidate(
    NodeState node, ChipState[] working, int position, ChipDemand demand, HostResources hostAfter) {

  /** The candidate chip with the vNPU placed. */
  public ChipState chipAfter() {
    return working[position].plus(demand);
  }

  /** The node's chips with the vNPU placed on the candidate. */
  public ChipState[] chipsAfter() {
    ChipState[] chips = working.clone();
    chips[position] = chipAfter();
    return chips;
  }
}
