package org.vnpu.core.ledger;

import java.time.Instant;
import java.util.List;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.core.inventory.NodeInventory;

/**
 * A node as the engine sees it at one instant. Immutable.
 *
 * @param inventory the node's chips and split mode
 * @param chips what is in use on each chip, in the inventory's order
 * @param hostCapacity host CPU and memory allocatable to pods
 * @param hostFree host CPU and memory not yet requested
 * @param heartbeat the device plugin's last report; null when it never reported
 * @param lock the allocation lock on the node; null when none
 */
public record NodeState(
    NodeInventory inventory,
    List<ChipState> chips,
    HostResources hostCapacity,
    HostResources hostFree,
    Instant heartbeat,
    NodeLock lock) {

  public NodeState {
    chips = List.copyOf(chips);
  }

  /** An idle node. */
  public static NodeState idle(
      NodeInventory inventory, HostResources hostCapacity, Instant heartbeat) {
    return new NodeState(
        inventory,
        inventory.chips().stream().map(ChipState::idle).toList(),
        hostCapacity,
        hostCapacity,
        heartbeat,
        null);
  }

  public String name() {
    return inventory.node();
  }

  public NodeState withChips(List<ChipState> newChips, HostResources newHostFree) {
    return new NodeState(inventory, newChips, hostCapacity, newHostFree, heartbeat, lock);
  }

  public NodeState withHeartbeat(Instant at) {
    return new NodeState(inventory, chips, hostCapacity, hostFree, at, lock);
  }

  public NodeState withLock(NodeLock newLock) {
    return new NodeState(inventory, chips, hostCapacity, hostFree, heartbeat, newLock);
  }
}
