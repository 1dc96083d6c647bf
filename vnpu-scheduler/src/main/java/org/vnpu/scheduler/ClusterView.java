package org.vnpu.scheduler;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.MalformedPayloadException;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.PodRef;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.inventory.NodeInventory;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.request.HostRequests;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.validation.Validated;

/**
 * The cluster as the API server tells it, fed by the informers: the ledger (nodes' registrations,
 * heartbeats and locks; pods' signed allocations), the host resources kube-scheduler counts, and
 * the reservations pending, also those found on the API server after a restart or a change of
 * leader. It can be rebuilt at any time. Not thread-safe: the {@link SchedulerState} guards it with
 * its lock, and the scheduler's decisions read and charge it.
 */
final class ClusterView {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterView.class);

  private final ChipCatalog catalog;
  private final PayloadCodec codec;
  private final Clock clock;
  private final Ledger ledger = new Ledger();
  private final HostUsage hosts = new HostUsage();
  private final PodAllocations allocations = new PodAllocations();

  private final UndoneReservations undone = new UndoneReservations();
  private final UnseenLocks unseen = new UnseenLocks();

  /** Each node's lock entries as its Lease shows them (ADR 0032), whether or not it is known. */
  private final Map<String, NodeLockSet> leased = new HashMap<>();

  private final Map<String, PodFacts> facts = new HashMap<>();
  private final PreemptionHolds holds =
      new PreemptionHolds(ledger, this::forget, this::chargedOnItsRecord);
  private final ReplacementHolds replacements = new ReplacementHolds(ledger);
  private final Reservations reservations;
  private final HandoutCharges handouts =
      new HandoutCharges(ledger, allocations::noncesOn, this::charge);

  /** A pod whose charge {@link #recharged} replaces: now charged with {@code signed}. */
  record Recharge(PodRef pod, SignedAllocation signed) {}

  ClusterView(ChipCatalog catalog, PayloadCodec codec, SchedulerSettings settings, Clock clock) {
    this.catalog = catalog;
    this.codec = codec;
    this.clock = clock;
    this.reservations = new Reservations(settings.reservationTimeout());
  }

  PreemptionHolds holds() {
    return holds;
  }

  ReplacementHolds replacements() {
    return replacements;
  }

  /** The priority and start of the pod {@code uid}, as its last update said. */
  Optional<PodFacts> facts(String uid) {
    return Optional.ofNullable(facts.get(uid));
  }

  Ledger ledger() {
    return ledger;
  }

  /** The pod's allocation, or null. */
  AllocationPlan allocation(String uid) {
    return allocations.plan(uid);
  }

  /**
   * The pod was reserved with {@code plan} (already charged to the ledger) at {@code now}; returns
   * what it requests of the host, now charged too.
   */
  HostResources reserved(PodManifest pod, AllocationPlan plan, String nonce, Instant now) {
    allocations.put(new PodRef(pod.uid(), pod.namespace(), pod.name()), plan, nonce);
    reservations.reserved(pod.uid(), pod.namespace(), pod.name(), plan.node(), now);
    return chargeHost(pod, plan.node());
  }

  /**
   * The reservation's entry {@code lock} was taken on {@code node}: charged to the ledger's locks
   * now, and kept there until the node shows it ({@link UnseenLocks}).
   */
  void locked(String node, NodeLock lock) {
    ledger.lock(node, lock);
    unseen.taken(node, lock);
  }

  /** Whether the pod still holds the reservation signed with {@code nonce}. */
  boolean reservedWith(String uid, String nonce) {
    return nonce.equals(allocations.nonce(uid));
  }

  /** Whether the pod holds a reservation that no binding has followed yet. */
  boolean reserved(String uid) {
    return reservations.pending(uid);
  }

  /** The reservations whose time ran out before {@code now}. */
  List<Reservations.Reservation> expiredAt(Instant now) {
    return reservations.expiredAt(now);
  }

  /** The node on whose locks the ledger says the pod {@code uid} has an entry. */
  Optional<String> lockedBy(String uid) {
    AllocationPlan plan = allocations.plan(uid);
    return plan == null
        ? Optional.empty()
        : ledger
            .node(plan.node())
            .filter(node -> node.locks().of(uid).isPresent())
            .map(node -> plan.node());
  }

  /**
   * A node's lock Lease appeared or changed: {@code locks}, its entries, and {@code verified}, the
   * hand-out records among them whose signatures the caller checked. A node not known yet takes
   * them when it appears.
   */
  void locksChanged(String node, NodeLockSet locks, List<HandoutCharges.Verified> verified) {
    leased.put(node, locks);
    ledger.locks(node, unseen.over(node, locks, clock.instant()));
    handouts.recorded(node, verified);
  }

  /** A node's lock Lease is gone (with its node, or deleted by hand): it holds no entry. */
  void locksRemoved(String node) {
    locksChanged(node, NodeLockSet.EMPTY, List.of());
    leased.remove(node);
    handouts.nodeRemoved(node);
  }

  /** A node appeared or changed: its inventory, heartbeat, and the locks its Lease shows. */
  void nodeChanged(NodeSeen node) {
    String name = node.name();
    Map<String, String> annotations = node.annotations();
    String register = annotations.get(AnnotationKeys.NODE_REGISTER);
    if (register == null) {
      return;
    }
    try {
      NodeRegistration registration = codec.decodeRegistration(register);
      Validated<NodeInventory> inventory = NodeInventory.from(name, registration, catalog);
      if (inventory instanceof Validated.Invalid<NodeInventory> invalid) {
        LOG.warn("node {} is not schedulable: {}", name, invalid.messages());
        ledger.removeNode(name);
        return;
      }
      hosts.allocatable(name, node.allocatable());
      ledger.putNode(inventory.orElseThrow(), hosts.left(name));
      String handshake = annotations.get(AnnotationKeys.NODE_HANDSHAKE);
      if (handshake != null) {
        ledger.heartbeat(name, codec.decodeHandshake(handshake).at());
      }
      ledger.locks(
          name, unseen.over(name, leased.getOrDefault(name, NodeLockSet.EMPTY), clock.instant()));
      allocations.on(name).stream()
          .filter(plan -> !ledger.placements().containsKey(plan.podUid()))
          .toList()
          .forEach(this::charge);
      handouts.charge(name);
    } catch (MalformedPayloadException e) {
      LOG.warn("node {}: {}", name, e.getMessage());
    }
  }

  /** The hand-out records the scheduler may settle now ({@link HandoutCharges#settleable}). */
  List<HandoutRecord> settleable(Instant now) {
    return handouts.settleable(now);
  }

  /**
   * Re-charges pods after interchangeable pods' allocations were re-signed: each pod of {@code
   * recharges} is charged with its new allocation instead of its old one. All old charges go, and
   * so do the charges of hand-out records a pod's new allocation now names, before any new one is
   * made, so that pods trading chips never over-fill them and none is left uncharged.
   */
  void recharged(List<Recharge> recharges) {
    Set<String> nodes = new HashSet<>();
    List<AllocationPlan> plans = new ArrayList<>();
    for (Recharge recharge : recharges) {
      AllocationPlan old = allocations.remove(recharge.pod().uid());
      if (old != null) {
        ledger.release(recharge.pod().uid());
        nodes.add(old.node());
      }
    }
    for (Recharge recharge : recharges) {
      AllocationPlan plan = new AllocationPlan(recharge.signed().allocation(), HostResources.NONE);
      allocations.put(recharge.pod(), plan, recharge.signed().nonce());
      plans.add(plan);
      nodes.add(plan.node());
    }
    nodes.forEach(handouts::releaseNamed);
    plans.forEach(this::charge);
    nodes.forEach(handouts::chargeUnnamed);
  }

  /**
   * The pod on {@code node} whose charged allocation was signed with {@code nonce}: after a chain
   * of trades, not always the pod a hand-out record was signed for.
   */
  Optional<PodRef> carrier(String node, String nonce) {
    return allocations.carrier(node, nonce);
  }

  void nodeRemoved(String name) {
    handouts.nodeRemoved(name);
    hosts.nodeRemoved(name);
    ledger.removeNode(name);
  }

  /**
   * The pod's allocation annotation, decoded, when this view has not charged it yet; empty when it
   * has none, has it charged, has one whose reservation was undone and is not bound ({@link
   * #unreserved}), or has one that cannot be decoded (logged). Its signature is for the caller to
   * check, outside the scheduler's lock (the public keys may be read from the API server).
   */
  Optional<SignedAllocation> unchargedAllocation(PodSeen pod) {
    String uid = pod.uid();
    String value = pod.manifest().annotations().get(AnnotationKeys.ALLOCATION);
    if (value == null || allocations.has(uid)) {
      return Optional.empty();
    }
    try {
      SignedAllocation signed = codec.decodeAllocation(value);
      // A pod bound with an undone allocation runs with it (the undo's patch failed): charged.
      return !pod.bound() && undone.wasUndone(uid, signed.nonce())
          ? Optional.empty()
          : Optional.of(signed);
    } catch (MalformedPayloadException e) {
      LOG.warn("pod {}/{}: {}", pod.manifest().namespace(), pod.manifest().name(), e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * The pod appeared or changed: its host requests, and {@code verified}, its allocation whose
   * signature the caller checked, charged until it finishes.
   */
  void podChanged(PodSeen pod, Optional<SignedAllocation> verified) {
    String uid = pod.uid();
    if (pod.finished()) {
      forget(uid);
      return;
    }
    Integer priority = pod.manifest().priority();
    facts.put(uid, new PodFacts(priority == null ? 0 : priority, started(pod), pod.owner()));
    boolean bound = pod.bound();
    if (bound) {
      chargeHost(pod.manifest(), pod.nodeName());
      reservations.ended(uid);
      unseen.bound(uid, pod.manifest().annotations());
    }
    if (verified.isEmpty() || allocations.has(uid)) {
      return;
    }
    AllocationPlan plan = new AllocationPlan(verified.get().allocation(), HostResources.NONE);
    allocations.put(pod.ref(), plan, verified.get().nonce());
    charge(plan);
    handouts.charge(plan.node());
    if (!bound) {
      // Reserved by an earlier leader (or before a restart) and not bound yet: it expires as if
      // this scheduler had made it.
      reservations.found(
          uid,
          pod.manifest().namespace(),
          pod.manifest().name(),
          plan.node(),
          pod.manifest().annotations(),
          clock.instant());
    }
  }

  /** When the pod started, as its status says, else when this view first saw it. */
  private Instant started(PodSeen pod) {
    PodFacts seen = facts.get(pod.uid());
    return pod.started().orElse(seen == null ? clock.instant() : seen.started());
  }

  /**
   * Charges what the pod requests of the host to {@code node}, and what that leaves to the ledger;
   * the request, none when it cannot be read.
   */
  private HostResources chargeHost(PodManifest pod, String node) {
    HostResources request;
    try {
      request = HostRequests.of(pod);
    } catch (IllegalArgumentException e) {
      LOG.warn(
          "pod {}/{}: {}; its host request is not counted",
          pod.namespace(),
          pod.name(),
          e.getMessage());
      request = HostResources.NONE;
    }
    hosts.charge(pod.uid(), node, request).ifPresent(this::hostChanged);
    hostChanged(node);
    return request;
  }

  private void hostChanged(String node) {
    ledger.hostCapacity(node, hosts.left(node));
  }

  private void charge(AllocationPlan plan) {
    if (ledger.node(plan.node()).isPresent() && !ledger.apply(plan)) {
      LOG.warn(
          "allocation of pod {} does not fit node {} any more; not charged",
          plan.podUid(),
          plan.node());
    }
  }

  /**
   * The pod's reservation was undone: dropped as {@link #forget} drops it, and its allocation is
   * not charged again from copies of the pod that still carry it, unless the pod is bound.
   */
  void unreserved(String uid) {
    String nonce = allocations.nonce(uid);
    forget(uid);
    if (nonce != null) {
      undone.undone(uid, nonce);
    }
  }

  /** The pod is deleted: no later copy of it can carry an undone allocation. */
  void podDeleted(String uid) {
    undone.deleted(uid);
  }

  /**
   * Whether the pod's allocation stays charged when the pod is forgotten: its node's locks still
   * record its hand-out, which the device plugin settles a moment after the pod is gone.
   */
  private boolean chargedOnItsRecord(String uid) {
    AllocationPlan plan = allocations.plan(uid);
    return plan != null && handouts.recorded(plan.node(), allocations.nonce(uid));
  }

  /** Drops the pod: its allocation, reservation, ledger charge and host requests. */
  void forget(String uid) {
    AllocationPlan plan = allocations.remove(uid);
    unseen.ended(uid);
    facts.remove(uid);
    reservations.ended(uid);
    ledger.release(uid);
    hosts.release(uid).ifPresent(this::hostChanged);
    if (plan != null) {
      handouts.charge(plan.node());
    }
  }
}
