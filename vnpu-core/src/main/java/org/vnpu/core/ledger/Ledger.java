package org.vnpu.core.ledger;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.inventory.ChipSupply;
import org.vnpu.core.inventory.NodeInventory;

/**
 * The cluster's nodes and the allocations placed on them. Applying an allocation checks every chip
 * again, so no sequence of applies, releases and node updates lets the ledger over-commit a chip
 * through an allocation. Not thread-safe: the owner serialises access.
 */
public final class Ledger {

  private final NavigableMap<String, NodeState> nodes = new TreeMap<>();

  /**
   * {@link #nodes} by name alone: a verb looks up every node it is asked about, and a hash is one
   * probe where the ordered map compares names a dozen times.
   */
  private final Map<String, NodeState> byName = new HashMap<>();

  private final Map<String, AllocationPlan> placements = new HashMap<>();

  /** {@link #placements} by node, then by pod UID: what a node's change re-charges. */
  private final Map<String, Map<String, AllocationPlan>> placementsByNode = new HashMap<>();

  private NodeTable
      table; // the nodes as decisions read them; null until asked after a node came or went
  private ChipSupply supply; // null until asked after a node came, went or changed its chips

  /**
   * Adds a node or replaces its inventory and host capacity, keeping its heartbeat, lock and the
   * allocations on it (charged to the chips with the same die IDs). The same inventory and host
   * capacity again change nothing, so what decisions derived from the node and the chip supply
   * stay.
   */
  public void putNode(NodeInventory inventory, HostResources hostCapacity) {
    NodeState old = byName.get(inventory.node());
    if (old != null
        && old.inventory().equals(inventory)
        && old.hostCapacity().equals(hostCapacity)) {
      return;
    }
    NodeState fresh =
        NodeState.idle(inventory, hostCapacity, old == null ? null : old.heartbeat())
            .withLocks(old == null ? NodeLockSet.EMPTY : old.locks());
    for (AllocationPlan plan : placementsOn(inventory.node())) {
      fresh = charge(fresh, plan, false).orElseThrow();
    }
    store(fresh);
    supply = null;
  }

  /** Forgets a node and the allocations on it. */
  public void removeNode(String node) {
    nodes.remove(node);
    byName.remove(node);
    table = null;
    supply = null;
    Map<String, AllocationPlan> gone = placementsByNode.remove(node);
    if (gone != null) {
      placements.keySet().removeAll(gone.keySet());
    }
  }

  /**
   * Replaces the host capacity of the node, if there is one, keeping its allocations charged and
   * everything else as it is.
   */
  public void hostCapacity(String node, HostResources capacity) {
    NodeState state = byName.get(node);
    if (state == null || state.hostCapacity().equals(capacity)) {
      return; // an unchanged state keeps what decisions derived from it
    }
    if (state.hostCapacity() == HostResources.UNTRACKED) {
      putNode(state.inventory(), capacity); // what allocations took of an untracked host is unknown
    } else {
      store(state.withHostCapacity(capacity));
    }
  }

  public void heartbeat(String node, Instant at) {
    change(node, state -> state.withHeartbeat(at));
  }

  /** Sets the node's locks, as the node's annotation says. */
  public void locks(String node, NodeLockSet locks) {
    change(node, state -> state.withLocks(locks));
  }

  /** Adds {@code lock} to the node's locks, dropping those expired when it was taken. */
  public void lock(String node, NodeLock lock) {
    change(node, state -> state.withLocks(state.locks().with(lock, lock.acquiredAt())));
  }

  /** Removes the pod {@code podUid}'s entry from the node's locks; other pods' entries stay. */
  public void unlock(String node, String podUid) {
    change(node, state -> state.withLocks(state.locks().without(podUid)));
  }

  /**
   * Charges {@code plan} to its node. Returns false and changes nothing when the node is unknown,
   * the pod already has an allocation, a chip is missing, or anything does not fit.
   */
  public boolean apply(AllocationPlan plan) {
    NodeState node = byName.get(plan.node());
    if (node == null || placements.containsKey(plan.podUid())) {
      return false;
    }
    Optional<NodeState> charged = with(node, plan);
    charged.ifPresent(
        state -> {
          store(state);
          placements.put(plan.podUid(), plan);
          placementsByNode
              .computeIfAbsent(plan.node(), n -> new HashMap<>())
              .put(plan.podUid(), plan);
        });
    return charged.isPresent();
  }

  /** Returns the pod's allocation to its node; the released plan, if there was one. */
  public Optional<AllocationPlan> release(String podUid) {
    AllocationPlan plan = placements.remove(podUid);
    if (plan == null) {
      return Optional.empty();
    }
    Map<String, AllocationPlan> onNode = placementsByNode.get(plan.node());
    onNode.remove(podUid);
    if (onNode.isEmpty()) {
      placementsByNode.remove(plan.node());
    }
    NodeState node = byName.get(plan.node());
    if (node != null) {
      store(without(node, plan));
    }
    return Optional.of(plan);
  }

  /** {@code node} as it would be with {@code plan}, charged to it, returned. */
  public static NodeState without(NodeState node, AllocationPlan plan) {
    List<ChipState> chips = new ArrayList<>(node.chips());
    forEachVnpu(
        node,
        plan,
        (position, vnpu) -> {
          ChipState chip = chips.get(position);
          chips.set(position, chip.minus(Demands.of(vnpu, chip.chip())));
        });
    return node.withChips(chips, node.hostFree().plus(plan.host()));
  }

  /**
   * {@code node} with {@code plan} charged to it, or nothing when a chip is missing or anything
   * does not fit: the check {@link #apply} makes, for snapshots outside a ledger.
   */
  public static Optional<NodeState> with(NodeState node, AllocationPlan plan) {
    return plan.node().equals(node.name()) ? charge(node, plan, true) : Optional.empty();
  }

  public Optional<NodeState> node(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** The nodes in name order; a live view, not to be read while the ledger changes. */
  public Collection<NodeState> nodes() {
    return Collections.unmodifiableCollection(nodes.values());
  }

  /** The healthy chips of every node, by type. */
  public ChipSupply chipSupply() {
    if (supply == null) {
      supply = ChipSupply.of(nodes.values().stream().map(NodeState::inventory).toList());
    }
    return supply;
  }

  /**
   * The nodes in name order, with what decisions read of them in columns; a live view, kept up to
   * date as the ledger changes, not to be read while it changes.
   */
  public NodeTable table() {
    if (table == null) {
      table = NodeTable.of(nodes.values());
    }
    return table;
  }

  /** Replaces the state of {@code node}, if there is one, with what {@code change} makes of it. */
  private void change(String node, UnaryOperator<NodeState> change) {
    NodeState state = byName.get(node);
    if (state != null) {
      store(change.apply(state));
    }
  }

  /** Keeps {@code state} as its node's state, in the table too. */
  private void store(NodeState state) {
    nodes.put(state.name(), state);
    byName.put(state.name(), state);
    if (table != null && !table.replace(state)) {
      table = null; // a new node: the table is built again, in name order, when next asked
    }
  }

  /** The allocations by pod UID; a live view. */
  public Map<String, AllocationPlan> placements() {
    return Collections.unmodifiableMap(placements);
  }

  /** The allocations charged to {@code node}; a live view. */
  public Collection<AllocationPlan> placementsOn(String node) {
    Map<String, AllocationPlan> onNode = placementsByNode.get(node);
    return onNode == null ? List.of() : Collections.unmodifiableCollection(onNode.values());
  }

  private static Optional<NodeState> charge(NodeState node, AllocationPlan plan, boolean check) {
    if (check && !node.hostFree().covers(plan.host())) {
      return Optional.empty();
    }
    List<ChipState> chips = new ArrayList<>(node.chips());
    boolean[] fits = {true};
    int found =
        forEachVnpu(
            node,
            plan,
            (position, vnpu) -> {
              ChipState chip = chips.get(position);
              ChipDemand demand = Demands.of(vnpu, chip.chip());
              fits[0] &= chip.fits(demand, node.inventory().maxSharesPerChip());
              chips.set(position, chip.plus(demand));
            });
    if (check && (!fits[0] || found < vnpuCount(plan))) {
      return Optional.empty();
    }
    return Optional.of(node.withChips(chips, node.hostFree().minus(plan.host())));
  }

  private interface VnpuVisitor {
    void visit(int position, VnpuAssignment vnpu);
  }

  /** Visits each vNPU of the plan whose die ID is on the node; returns how many were visited. */
  private static int forEachVnpu(NodeState node, AllocationPlan plan, VnpuVisitor visitor) {
    int found = 0;
    for (ContainerAllocation container : plan.allocation().containers()) {
      for (VnpuAssignment vnpu : container.vnpus()) {
        int position = positionOfDie(node, vnpu.dieId());
        if (position >= 0) {
          visitor.visit(position, vnpu);
          found++;
        }
      }
    }
    return found;
  }

  private static int vnpuCount(AllocationPlan plan) {
    return plan.allocation().containers().stream().mapToInt(c -> c.vnpus().size()).sum();
  }

  private static int positionOfDie(NodeState node, String dieId) {
    List<ChipState> chips = node.chips();
    for (int i = 0; i < chips.size(); i++) {
      if (chips.get(i).chip().dieId().equals(dieId)) {
        return i;
      }
    }
    return -1;
  }
}
