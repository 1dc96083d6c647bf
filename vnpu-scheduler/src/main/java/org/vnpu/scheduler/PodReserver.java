package org.vnpu.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.core.engine.NodeFit;
import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.engine.RejectKind;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.HandoutShape;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;
import org.vnpu.kube.NodeLocks;

/**
 * Reserves, binds, pipelines and unreserves pods. Reserving a pod on a node charges the ledger and
 * the node's lock entry at once; the entry is then written on the node, and the signed allocation
 * and the pending containers on the pod, after the answer (Volcano may bind the pod meanwhile: the
 * device plugin waits for them). Binding writes the entry, then the binding with the annotations.
 * When a write fails, the ledger and the lock are undone. The decision and the charge are made
 * under the state's lock, the writes outside it.
 */
final class PodReserver {

  private static final Logger LOG = LoggerFactory.getLogger(PodReserver.class);

  private final SchedulerState state;
  private final ClusterView view;
  private final SchedulerCounters counters;
  private final ClusterPort cluster;
  private final EventSink events;
  private final ReservationAnnotations annotations;
  private final ReservationWrites writes = new ReservationWrites();

  PodReserver(
      SchedulerState state,
      SchedulerCounters counters,
      ClusterPort cluster,
      EventSink events,
      ReservationAnnotations annotations) {
    this.state = state;
    this.view = state.cluster();
    this.counters = counters;
    this.cluster = cluster;
    this.events = events;
    this.annotations = annotations;
  }

  /** See {@link Scheduler#finishWrites}. */
  boolean finishWrites(Duration limit) {
    return writes.awaitAll(limit);
  }

  /**
   * See {@link Scheduler#reserve}: decided and charged now, written by {@link ReservationWrites}
   * after the caller has its answer.
   */
  CompletableFuture<AllocationPlan> reserve(PodManifest pod, String node)
      throws SchedulingException {
    Claim claim = claim(pod, node);
    if (claim.lock() == null) {
      return CompletableFuture.completedFuture(claim.plan());
    }
    return writes.submit(pod.uid(), () -> write(pod, node, claim));
  }

  /**
   * Writes a reservation: the node's lock entry first, then the pod's annotations, as before a
   * binding (a refused entry leaves nothing on the pod). When either cannot be written, or the
   * reservation ended meanwhile (deallocateFunc, the pod deleted), what was written is undone.
   */
  private AllocationPlan write(PodManifest pod, String node, Claim claim)
      throws SchedulingException {
    String nonce = claim.lock().nonce();
    if (!current(pod, nonce)) {
      throw new SchedulingException(ended(pod));
    }
    try {
      take(node, claim);
    } catch (NodeLocks.RefusedException e) {
      throw undo(pod, node, nonce, false, e.getMessage());
    }
    try {
      cluster.annotate(pod.namespace(), pod.name(), annotations(claim));
    } catch (RuntimeException e) {
      // The patch may have been applied before its answer failed.
      throw undo(pod, node, nonce, true, "cannot annotate the pod: " + e.getMessage());
    }
    if (!current(pod, nonce)) {
      clear(pod, node, true); // its undo may have run before these writes landed
      throw new SchedulingException(ended(pod));
    }
    reserved(pod, node, claim);
    return claim.plan();
  }

  /** Removes what a reservation's writes left: the pod's annotations if written, the entry. */
  private void clear(PodManifest pod, String node, boolean annotated) {
    if (annotated) {
      try {
        cluster.annotate(pod.namespace(), pod.name(), ReservationAnnotations.REMOVED);
      } catch (RuntimeException e) {
        LOG.warn("cannot clear pod {}/{}: {}", pod.namespace(), pod.name(), e.getMessage());
      }
    }
    cluster.unlock(node, pod.uid());
  }

  /** Waits until the writes of the pod's reservation under way are done, whatever their outcome. */
  void awaitWritten(String uid) {
    writes.awaitWritten(uid);
  }

  private boolean current(PodManifest pod, String nonce) {
    synchronized (state) {
      return view.reservedWith(pod.uid(), nonce);
    }
  }

  private static String ended(PodManifest pod) {
    return "the reservation of pod "
        + pod.namespace()
        + "/"
        + pod.name()
        + " ended before it was written";
  }

  /**
   * Undoes a reservation that could not be written: the view and the ledger (unless a newer
   * reservation of the pod replaced it), the pod's annotations and the node's entry. Tells the
   * pod's owner, as nobody waits for the answer: Volcano binds the pod all the same, and the node's
   * device plugin then refuses it.
   */
  private SchedulingException undo(
      PodManifest pod, String node, String nonce, boolean annotated, String why) {
    synchronized (state) {
      if (view.reservedWith(pod.uid(), nonce)) {
        view.unreserved(pod.uid());
        view.ledger().unlock(node, pod.uid());
      }
    }
    clear(pod, node, annotated);
    String message = "the reservation of its vNPUs on node " + node + " was undone: " + why;
    LOG.warn("pod {}/{}: {}", pod.namespace(), pod.name(), message);
    events.unschedulable(pod, message);
    return new SchedulingException("pod " + pod.namespace() + "/" + pod.name() + ": " + message);
  }

  /**
   * Reserves and binds (kube-scheduler's bind verb). The Binding carries the reservation's
   * annotations, which the API server sets on the pod with its node in one write: the pod is never
   * seen bound without its allocation, and a binding refused leaves nothing on it.
   */
  void bind(PodManifest pod, String node) throws SchedulingException {
    Claim claim = claim(pod, node);
    if (claim.lock() != null) {
      lock(pod, node, claim);
    }
    try {
      cluster.bind(
          pod.namespace(),
          pod.name(),
          pod.uid(),
          node,
          claim.lock() == null ? Map.of() : annotations(claim));
    } catch (RuntimeException e) {
      unreserve(pod.namespace(), pod.name(), pod.uid());
      throw new SchedulingException(
          "cannot bind pod "
              + pod.namespace()
              + "/"
              + pod.name()
              + " to "
              + node
              + ": "
              + e.getMessage());
    }
    if (claim.lock() != null) {
      reserved(pod, node, claim);
    }
  }

  /** Takes the node's lock entry of a claim; when it cannot, the claim is undone. */
  private void lock(PodManifest pod, String node, Claim claim) throws SchedulingException {
    try {
      take(node, claim);
    } catch (NodeLocks.RefusedException e) {
      synchronized (state) {
        view.forget(pod.uid());
        view.ledger().unlock(node, pod.uid());
      }
      throw new SchedulingException(e.getMessage());
    }
  }

  /** Writes the claim's lock entry on {@code node}; a refusal for another pod's entry counts. */
  private void take(String node, Claim claim) throws NodeLocks.RefusedException {
    try {
      cluster.lock(node, claim.lock(), state.clock().instant());
    } catch (NodeLocks.RefusedException e) {
      if (e.heldByAnother()) {
        counters.lockRefused();
      }
      throw e;
    }
  }

  private Map<String, String> annotations(Claim claim) {
    return annotations.of(claim.plan(), claim.lock().nonce());
  }

  /** Logs a reservation written and records its event. */
  private void reserved(PodManifest pod, String node, Claim claim) {
    String placed = ReservationAnnotations.describe(claim.plan());
    LOG.info(
        "reserved {} for pod {}/{} on node {}{}",
        placed,
        pod.namespace(),
        pod.name(),
        node,
        claim.left());
    events.allocated(pod, "vNPUs on node " + node + ": " + placed + claim.left());
  }

  /** See {@link Scheduler#pipeline}. */
  void pipeline(PodManifest pod, String node) throws SchedulingException {
    synchronized (state) {
      AllocationPlan existing = view.allocation(pod.uid());
      if (existing != null) {
        if (existing.node().equals(node)) {
          return;
        }
        throw alreadyPlaced(pod, existing);
      }
      if (view.holds().coming(pod.uid(), node)) {
        return;
      }
      PodRequest request = state.request(pod);
      AllocationPlan place = fit(pod, request, node).toAllocationPlan(request);
      view.holds()
          .hold(
              new PreemptionHolds.Hold(
                  pod.uid(), place, Set.of(), state.clock().instant().plus(PreemptionHolds.HOLD)));
      view.holds().retry();
      LOG.info(
          "pod {}/{} pipelined onto node {}: {} held for it",
          pod.namespace(),
          pod.name(),
          node,
          ReservationAnnotations.describe(place));
    }
  }

  /** See {@link Scheduler#evicting}. */
  void evicting(String uid) {
    synchronized (state) {
      view.holds().evicting(uid);
    }
  }

  /**
   * Undoes a reservation: the ledger, then, once the writes of the reservation under way are done,
   * the pod's annotations and the node's lock if it is ours.
   */
  void unreserve(String namespace, String name, String uid) {
    AllocationPlan plan = drop(uid);
    if (plan == null) {
      return;
    }
    writes.awaitWritten(uid);
    try {
      cluster.annotate(namespace, name, ReservationAnnotations.REMOVED);
    } catch (RuntimeException e) {
      LOG.warn("cannot clear pod {}/{}: {}", namespace, name, e.getMessage());
    }
    unlock(plan.node(), uid);
  }

  /**
   * Drops the reservation of pod {@code uid} from the view, and any place held for it (Volcano
   * undoes a pipeline with deallocateFunc too); its plan, null without one.
   */
  AllocationPlan drop(String uid) {
    synchronized (state) {
      AllocationPlan plan = view.allocation(uid);
      view.unreserved(uid);
      view.holds().drop(uid);
      return plan;
    }
  }

  /** Releases {@code node}'s lock entry of pod {@code uid} if it has one. */
  void unlock(String node, String uid) {
    if (cluster.unlock(node, uid)) {
      synchronized (state) {
        view.ledger().unlock(node, uid);
      }
    }
  }

  /**
   * A placement charged to the ledger: its plan, the node's lock for it (null when the pod already
   * had it), and what the decision left to other pods, as a clause of the pod's event.
   */
  private record Claim(AllocationPlan plan, NodeLock lock, String left) {}

  /**
   * Decides the pod's placement on {@code node} and charges it to the ledger, with the node locked
   * there for the pod, so that no other decision takes the same node before the lock is written.
   */
  private Claim claim(PodManifest pod, String node) throws SchedulingException {
    synchronized (state) {
      AllocationPlan existing = view.allocation(pod.uid());
      if (existing != null) {
        if (existing.node().equals(node)) {
          return new Claim(existing, null, "");
        }
        throw alreadyPlaced(pod, existing);
      }
      PodRequest request = state.request(pod);
      AllocationPlan plan = fit(pod, request, node).toAllocationPlan(request);
      view.holds().drop(pod.uid()); // a place held for it is its own now
      view.replacements().taken(state.replacementOwner(pod, request), node);
      if (!view.ledger().apply(plan)) {
        throw new SchedulingException(
            "node " + node + " changed; pod " + pod.name() + " no longer fits");
      }
      Instant now = state.clock().instant();
      NodeLock lock = lock(pod, request, now);
      view.locked(node, lock);
      String left = state.mix().leftScarce(request, plan);
      state.observe(request, view.reserved(pod, plan, lock.nonce(), now));
      return new Claim(plan, lock, left);
    }
  }

  /** The node lock entry of a reservation of {@code pod} taken {@code now}, with a new nonce. */
  private NodeLock lock(PodManifest pod, PodRequest request, Instant now) {
    HandoutShape shape = HandoutShape.of(request);
    return new NodeLock(
        pod.uid(),
        pod.namespace(),
        pod.name(),
        now,
        now.plus(state.settings().lockTimeout()),
        AllocationSigner.nonce(),
        shape.digest(),
        shape.counts(),
        0);
  }

  /** How the pod fits {@code node} as it sees it; refused with the reason when it does not. */
  private NodePlan fit(PodManifest pod, PodRequest request, String node)
      throws SchedulingException {
    NodeState seen =
        state
            .nodeFor(pod, request, node)
            .orElseThrow(() -> new SchedulingException("node " + node + " has no vNPU inventory"));
    NodeFit fit = PlacementEngine.fit(request, HostResources.NONE, seen, state.context());
    if (fit instanceof NodeFit.Rejected rejected) {
      counters.rejected(rejected.rejection().kind());
      if (rejected.rejection().kind() == RejectKind.LOCKED) {
        counters.lockRefused();
      }
      throw new SchedulingException(
          "pod "
              + pod.namespace()
              + "/"
              + pod.name()
              + " does not fit node "
              + node
              + ": "
              + rejected.rejection().phrase());
    }
    return ((NodeFit.Fits) fit).plan();
  }

  private static SchedulingException alreadyPlaced(PodManifest pod, AllocationPlan existing) {
    return new SchedulingException(
        "pod "
            + pod.namespace()
            + "/"
            + pod.name()
            + " is already placed on node "
            + existing.node()
            + " and not bound there; it is not moved while that allocation is on the pod (a"
            + " Volcano binding would carry it back): it ends with deallocateFunc or when the"
            + " reservation expires");
  }
}
