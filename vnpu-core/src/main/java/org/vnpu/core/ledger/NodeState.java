package org.vnpu.core.ledger;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.core.inventory.NodeInventory;

/**
 * A node as the engine sees it at one instant. Immutable. A class rather than a record so that what
 * every decision asks of every node — its chips' mean utilization, least and most chip memory, the
 * fragmentation meter's aggregates — is worked out once per state instead of once per decision;
 * none of it is part of its identity.
 */
public final class NodeState {

  private final NodeInventory inventory;
  private final List<ChipState> chips;
  private final HostResources hostCapacity;
  private final HostResources hostFree;
  private final Instant heartbeat;
  private final NodeLockSet locks;
  private final double utilization;
  private final long leastChipMemoryMiB;
  private final long mostChipMemoryMiB;
  private volatile Derived derived;

  /** A value that one owner derived from a state, and that knows its owner. */
  public interface Derived {
    Object owner();
  }

  /**
   * @param inventory the node's chips and split mode
   * @param chips what is in use on each chip, in the inventory's order
   * @param hostCapacity host CPU and memory allocatable to pods
   * @param hostFree host CPU and memory not yet requested
   * @param heartbeat the device plugin's last report; null when it never reported
   * @param locks the pods reserved on the node and not yet handed out
   */
  public NodeState(
      NodeInventory inventory,
      List<ChipState> chips,
      HostResources hostCapacity,
      HostResources hostFree,
      Instant heartbeat,
      NodeLockSet locks) {
    this.inventory = inventory;
    this.chips = List.copyOf(chips);
    this.hostCapacity = hostCapacity;
    this.hostFree = hostFree;
    this.heartbeat = heartbeat;
    this.locks = Objects.requireNonNull(locks, "locks");
    this.utilization = Utilization.of(this.chips);
    long least = this.chips.isEmpty() ? 0 : Long.MAX_VALUE;
    long most = 0;
    for (ChipState chip : this.chips) {
      least = Math.min(least, chip.chip().memoryMiB());
      most = Math.max(most, chip.chip().memoryMiB());
    }
    this.leastChipMemoryMiB = least;
    this.mostChipMemoryMiB = most;
  }

  /** The same chips and their figures under another host, heartbeat or lock. */
  private NodeState(
      NodeState same,
      HostResources hostCapacity,
      HostResources hostFree,
      Instant heartbeat,
      NodeLockSet locks) {
    this.inventory = same.inventory;
    this.chips = same.chips;
    this.hostCapacity = hostCapacity;
    this.hostFree = hostFree;
    this.heartbeat = heartbeat;
    this.locks = locks;
    this.utilization = same.utilization;
    this.leastChipMemoryMiB = same.leastChipMemoryMiB;
    this.mostChipMemoryMiB = same.mostChipMemoryMiB;
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
        NodeLockSet.EMPTY);
  }

  public NodeInventory inventory() {
    return inventory;
  }

  public List<ChipState> chips() {
    return chips;
  }

  public HostResources hostCapacity() {
    return hostCapacity;
  }

  public HostResources hostFree() {
    return hostFree;
  }

  public Instant heartbeat() {
    return heartbeat;
  }

  public NodeLockSet locks() {
    return locks;
  }

  public String name() {
    return inventory.node();
  }

  /** The chips' mean utilization, 0..100 ({@link Utilization}); 0 without chips. */
  public double utilization() {
    return utilization;
  }

  /** The memory of the node's smallest chip; 0 without chips. */
  public long leastChipMemoryMiB() {
    return leastChipMemoryMiB;
  }

  /** The memory of the node's largest chip; 0 without chips. */
  public long mostChipMemoryMiB() {
    return mostChipMemoryMiB;
  }

  /**
   * What {@code owner} derives from this state with {@code derive}: worked out on the owner's first
   * request and kept with the state while the same owner asks (one owner at a time, in practice the
   * decisions' fragmentation meter). A cache, not part of the state's identity. The value carries
   * its owner, so that asking costs one object read, not two.
   */
  @SuppressWarnings("unchecked") // only derive, for this owner, put a value of this owner there
  public <T extends Derived> T derived(Object owner, Function<NodeState, T> derive) {
    Derived current = derived;
    if (current == null || current.owner() != owner) {
      current = derive.apply(this);
      derived = current;
    }
    return (T) current;
  }

  public NodeState withChips(List<ChipState> newChips, HostResources newHostFree) {
    return new NodeState(inventory, newChips, hostCapacity, newHostFree, heartbeat, locks);
  }

  /**
   * This node with another host capacity; what its allocations take of the host stays taken. From
   * an untracked capacity nothing is known to be taken (the ledger charges the allocations again).
   */
  public NodeState withHostCapacity(HostResources capacity) {
    HostResources taken =
        new HostResources(
            hostCapacity.cpuMilli() - hostFree.cpuMilli(),
            hostCapacity.memoryMiB() - hostFree.memoryMiB());
    return new NodeState(this, capacity, capacity.minus(taken), heartbeat, locks);
  }

  public NodeState withHeartbeat(Instant at) {
    return new NodeState(this, hostCapacity, hostFree, at, locks);
  }

  public NodeState withLocks(NodeLockSet newLocks) {
    return new NodeState(this, hostCapacity, hostFree, heartbeat, newLocks);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof NodeState that
        && inventory.equals(that.inventory)
        && chips.equals(that.chips)
        && hostCapacity.equals(that.hostCapacity)
        && hostFree.equals(that.hostFree)
        && Objects.equals(heartbeat, that.heartbeat)
        && locks.equals(that.locks);
  }

  @Override
  public int hashCode() {
    return Objects.hash(inventory, chips, hostCapacity, hostFree, heartbeat, locks);
  }

  @Override
  public String toString() {
    return "NodeState[inventory="
        + inventory
        + ", chips="
        + chips
        + ", hostCapacity="
        + hostCapacity
        + ", hostFree="
        + hostFree
        + ", heartbeat="
        + heartbeat
        + ", locks="
        + locks
        + "]";
  }
}
