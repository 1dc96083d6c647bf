package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.MalformedPayloadException;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.signing.SignedAllocation;
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
 * leader. It can be rebuilt at any time. Not thread-safe: the {@link Scheduler} guards it with its
 * lock, and its decisions read and charge it.
 */
final class ClusterView {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterView.class);

  private final ChipCatalog catalog;
  private final PayloadCodec codec;
  private final Clock clock;
  private final Ledger ledger = new Ledger();
  private final HostUsage hosts = new HostUsage();
  private final Map<String, AllocationPlan> allocations = new HashMap<>();
  private final Reservations reservations;

  ClusterView(ChipCatalog catalog, PayloadCodec codec, SchedulerSettings settings, Clock clock) {
    this.catalog = catalog;
    this.codec = codec;
    this.clock = clock;
    this.reservations = new Reservations(settings.reservationTimeout());
  }

  Ledger ledger() {
    return ledger;
  }

  /** The pod's allocation, or null. */
  AllocationPlan allocation(String uid) {
    return allocations.get(uid);
  }

  /**
   * The pod was reserved with {@code plan} (already charged to the ledger) at {@code now}; returns
   * what it requests of the host, now charged too.
   */
  HostResources reserved(PodManifest pod, AllocationPlan plan, Instant now) {
    allocations.put(pod.uid(), plan);
    reservations.reserved(pod.uid(), pod.namespace(), pod.name(), plan.node(), now);
    return chargeHost(pod, plan.node());
  }

  /** The reservations whose time ran out before {@code now}. */
  List<Reservations.Reservation> expiredAt(Instant now) {
    return reservations.expiredAt(now);
  }

  /** The node on whose locks the ledger says the pod {@code uid} has an entry. */
  Optional<String> lockedBy(String uid) {
    AllocationPlan plan = allocations.get(uid);
    return plan == null
        ? Optional.empty()
        : ledger
            .node(plan.node())
            .filter(node -> node.locks().of(uid).isPresent())
            .map(node -> plan.node());
  }

  /** A node appeared or changed: its inventory, heartbeat and lock. */
  void nodeChanged(Node node) {
    String name = node.getMetadata().getName();
    Map<String, String> annotations = annotations(node.getMetadata().getAnnotations());
    String register = annotations.get(AnnotationKeys.NODE_REGISTER);
    if (register == null) {
      return;
    }
    try {
      NodeRegistration registration = codec.decodeRegistration(register);
      Validated<NodeInventory> inventory = NodeInventory.from(name, registration, catalog);
      if (inventory instanceof Validated.Invalid<NodeInventory> invalid) {
        LOG.warn("node {} is not schedulable: {}", name, messages(invalid));
        ledger.removeNode(name);
        return;
      }
      hosts.allocatable(name, allocatable(node));
      ledger.putNode(inventory.orElseThrow(), hosts.left(name));
      String handshake = annotations.get(AnnotationKeys.NODE_HANDSHAKE);
      if (handshake != null) {
        ledger.heartbeat(name, codec.decodeHandshake(handshake).at());
      }
      String lock = annotations.get(AnnotationKeys.NODE_LOCK);
      ledger.locks(name, lock == null ? NodeLockSet.EMPTY : codec.decodeLock(lock));
      allocations.values().stream()
          .filter(plan -> plan.node().equals(name))
          .filter(plan -> !ledger.placements().containsKey(plan.podUid()))
          .toList()
          .forEach(this::charge);
    } catch (MalformedPayloadException e) {
      LOG.warn("node {}: {}", name, e.getMessage());
    }
  }

  void nodeRemoved(String name) {
    hosts.nodeRemoved(name);
    ledger.removeNode(name);
  }

  /** A pod appeared or changed: its signed allocation is charged until it finishes. */
  /**
   * The pod's allocation annotation, decoded, when this view has not charged it yet; empty when it
   * has none, has it charged, or has one that cannot be decoded (logged). Its signature is for the
   * caller to check, outside the scheduler's lock (the public keys may be read from the API
   * server).
   */
  Optional<SignedAllocation> unchargedAllocation(Pod pod) {
    String value = annotations(pod.getMetadata().getAnnotations()).get(AnnotationKeys.ALLOCATION);
    if (value == null || allocations.containsKey(pod.getMetadata().getUid())) {
      return Optional.empty();
    }
    try {
      return Optional.of(codec.decodeAllocation(value));
    } catch (MalformedPayloadException e) {
      LOG.warn(
          "pod {}/{}: {}",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * The pod appeared or changed: its host requests, and {@code verified}, its allocation whose
   * signature the caller checked, charged until it finishes.
   */
  void podChanged(Pod pod, Optional<PodAllocation> verified) {
    String uid = pod.getMetadata().getUid();
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      forget(uid);
      return;
    }
    boolean bound = pod.getSpec() != null && pod.getSpec().getNodeName() != null;
    if (bound) {
      chargeHost(Fabric8Views.manifest(pod), pod.getSpec().getNodeName());
      reservations.ended(uid);
    }
    if (verified.isEmpty() || allocations.containsKey(uid)) {
      return;
    }
    AllocationPlan plan = new AllocationPlan(verified.get(), HostResources.NONE);
    allocations.put(uid, plan);
    charge(plan);
    if (!bound) {
      // Reserved by an earlier leader (or before a restart) and not bound yet: it expires as if
      // this scheduler had made it.
      reservations.found(
          uid,
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          plan.node(),
          annotations(pod.getMetadata().getAnnotations()),
          clock.instant());
    }
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

  /** The node's allocatable host; untracked when the node does not say or says it unreadably. */
  private static HostResources allocatable(Node node) {
    try {
      return Fabric8Views.allocatable(node);
    } catch (IllegalArgumentException e) {
      LOG.warn(
          "node {}: allocatable host not readable ({}); its host resources are not followed",
          node.getMetadata().getName(),
          e.getMessage());
      return HostResources.UNTRACKED;
    }
  }

  private void charge(AllocationPlan plan) {
    if (ledger.node(plan.node()).isPresent() && !ledger.apply(plan)) {
      LOG.warn(
          "allocation of pod {} does not fit node {} any more; not charged",
          plan.podUid(),
          plan.node());
    }
  }

  /** Drops the pod: its allocation, reservation, ledger charge and host requests. */
  void forget(String uid) {
    allocations.remove(uid);
    reservations.ended(uid);
    ledger.release(uid);
    hosts.release(uid).ifPresent(this::hostChanged);
  }

  private static String messages(Validated.Invalid<?> invalid) {
    return String.join("; ", invalid.problems().stream().map(p -> p.message()).toList());
  }

  private static Map<String, String> annotations(Map<String, String> annotations) {
    return annotations == null ? Map.of() : annotations;
  }
}
