package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.BindPhase;
import org.vnpu.api.KubernetesNames;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.api.Priority;
import org.vnpu.api.codec.MalformedPayloadException;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.PendingContainers;
import org.vnpu.api.payload.PodRef;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.SignedAllocation;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.engine.NodeFit;
import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.engine.RebalancePlanner;
import org.vnpu.core.engine.RejectKind;
import org.vnpu.core.engine.Rejection;
import org.vnpu.core.engine.RejectionSummary;
import org.vnpu.core.engine.Remedy;
import org.vnpu.core.engine.VictimPlanner;
import org.vnpu.core.fragmentation.FragmentationMeter;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.core.fragmentation.WorkloadShape;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.policy.Policies;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.HandoutShape;
import org.vnpu.core.request.HostRequests;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;
import org.vnpu.core.request.RequestParser;
import org.vnpu.core.validation.Validated;
import org.vnpu.kube.AnnotationPatches;
import org.vnpu.kube.DaemonThreads;
import org.vnpu.kube.NodeLocks;
import org.vnpu.kube.PodBindings;

/**
 * The scheduler's decisions over its {@link ClusterView} (the ledger the informers feed, which can
 * be rebuilt at any time); the decisions are the engine's. Reserving a pod on a node charges the
 * ledger, takes the node's lock and writes the signed allocation and the pending containers on the
 * pod, before the pod is bound. Decisions are serialised on this object, so two pods racing for the
 * last slot see one ledger; calls to the API server are made outside that lock, so a slow API
 * server delays the pod that waits for it, not every decision. A reservation whose pod is never
 * bound expires ({@link Reservations}); its lock is released then, when its pod is deleted, and
 * when anything after taking the lock fails. Host CPU and memory shape the scores; filters and
 * reservations leave them to the schedulers, which check them themselves and see pods the informers
 * have not yet delivered.
 */
public final class Scheduler {

  private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);
  private static final int OBSERVED_SHAPES = 1000;
  private static final Set<RejectKind> UNRESOLVABLE =
      Set.of(RejectKind.MODE_MISMATCH, RejectKind.CHIP_TYPE_NOT_FOUND, RejectKind.DIE_ID_NOT_FOUND);

  /** How one node answers a filter: fits (reason null), or why not, and whether waiting helps. */
  public record Verdict(String reason, boolean unresolvable) {
    static final Verdict FITS = new Verdict(null, false);

    public boolean fits() {
      return reason == null;
    }
  }

  /** The removal of the annotations a reservation writes on its pod. */
  private static final Map<String, String> RESERVATION_REMOVED = reservationRemoved();

  /** How often an expiry reads a pod again that changed while it was cleared, in one pass. */
  private static final int EXPIRY_ATTEMPTS = 3;

  private final KubernetesClient client;
  private final RequestParser parser;
  private final AllocationSigner signer;
  private final AllocationVerifier verifier;
  private final PayloadCodec codec = new PayloadCodec();
  private final SchedulerSettings settings;
  private final Clock clock;
  private final AnnotationPatches patches;
  private final NodeLocks locks;
  private final PodEvents events;
  private final ClusterView cluster;
  private final DraLedger dra;
  private final Deque<WorkloadShape> shapes = new ArrayDeque<>();
  private FragmentationMeter meter = new FragmentationMeter(WorkloadMix.EMPTY);
  private final Map<RejectKind, Long> rejected = new EnumMap<>(RejectKind.class);
  private final Map<String, Long> preemptionCandidates = new HashMap<>();
  private final Map<String, Long> rebalanceCounts = new ConcurrentHashMap<>();
  private long lockRefusals;
  private final Object liveness = new Object();
  private ExecutorService livenessProbe;

  public Scheduler(
      KubernetesClient client,
      ChipCatalog catalog,
      AllocationSigner signer,
      AllocationVerifier verifier,
      SchedulerSettings settings,
      Clock clock) {
    this.client = client;
    this.parser =
        new RequestParser(catalog, settings.podDefaults(), settings.onlinePriorityThreshold());
    this.signer = signer;
    this.settings = settings;
    this.verifier = verifier;
    this.cluster = new ClusterView(catalog, codec, settings, clock);
    this.dra = new DraLedger(settings.draDriver(), catalog);
    this.clock = clock;
    this.patches = new AnnotationPatches(client);
    this.locks = new NodeLocks(client, codec);
    this.events = new PodEvents(client, clock);
  }

  // ---- the cluster, as the API server tells it ----

  /** Reads every node and pod again: the ledger after a restart is the ledger before it. */
  public void rebuild() {
    client.nodes().list().getItems().forEach(this::nodeChanged);
    client.pods().inAnyNamespace().list().getItems().forEach(this::podChanged);
  }

  /** A node appeared or changed: its inventory, heartbeat, locks and hand-outs. */
  public void nodeChanged(Node node) {
    List<HandoutRecord> records;
    synchronized (this) {
      records = cluster.handoutRecords(node);
    }
    // Verifying may read the public keys from the API server: outside the lock.
    List<ClusterView.VerifiedHandout> verified = new ArrayList<>();
    for (HandoutRecord record : records) {
      verifiedHandout(node.getMetadata().getName(), record).ifPresent(verified::add);
    }
    synchronized (this) {
      cluster.nodeChanged(node, verified);
      cluster.holds().retry(); // its hand-outs settled: a held place may fit now
    }
  }

  /**
   * The record's allocation, when it is signed by this scheduler for the pod and node the record
   * names, with the record's nonce; a record that fails is logged and not charged.
   */
  private Optional<ClusterView.VerifiedHandout> verifiedHandout(String node, HandoutRecord record) {
    try {
      SignedAllocation signed = codec.decodeAllocation(record.allocation());
      if (signed.nonce().equals(record.nonce())
          && verifier.verifiesFor(signed, record.signedFor().uid(), node)) {
        return Optional.of(new ClusterView.VerifiedHandout(record, signed));
      }
    } catch (MalformedPayloadException e) {
      LOG.warn("node {}: hand-out {}: {}", node, record.nonce(), e.getMessage());
      return Optional.empty();
    }
    LOG.warn(
        "node {}: hand-out {} names an allocation not signed for pod {} there; ignored",
        node,
        record.nonce(),
        record.signedFor());
    return Optional.empty();
  }

  public synchronized void nodeRemoved(String name) {
    cluster.nodeRemoved(name);
  }

  /** A pod appeared or changed: its signed allocation is charged until it finishes. */
  public void podChanged(Pod pod) {
    Optional<SignedAllocation> uncharged;
    synchronized (this) {
      uncharged = cluster.unchargedAllocation(pod);
    }
    // Verifying may read the public keys from the API server: outside the lock.
    Optional<SignedAllocation> verified =
        uncharged
            .filter(signed -> signed.allocation().podUid().equals(pod.getMetadata().getUid()))
            .filter(verifier::verifies);
    if (uncharged.isPresent() && verified.isEmpty()) {
      LOG.warn(
          "pod {}/{}: ignoring an allocation whose signature does not verify",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName());
    }
    synchronized (this) {
      cluster.podChanged(pod, verified);
    }
  }

  /**
   * A pod is gone: its vNPUs and, if it still held its node's lock, the lock ({@link
   * NodeLocks#releaseDeleted}: an entry that may stand for a waiting pod of its shape stays, and
   * can hand out nothing, as its pod's annotations are gone). A preemption's victim keeps its vNPUs
   * charged until the other victims are gone too (docs/colocation.md).
   */
  public void podRemoved(String uid) {
    Optional<String> locked;
    synchronized (this) {
      cluster.podDeleted(uid);
      if (cluster.holds().removed(uid)) {
        return;
      }
      locked = cluster.lockedBy(uid);
      cluster.forget(uid);
      cluster.holds().retry(); // room it held may be what a held place waits for
    }
    locked.ifPresent(node -> locks.releaseDeleted(node, uid));
  }

  /**
   * Undoes the reservations whose pods were not bound in time (annotations, ledger and lock), and
   * ends the places held for preemptors past their time.
   */
  public void expireReservations() {
    List<Reservations.Reservation> expired;
    synchronized (this) {
      expired = cluster.expiredAt(clock.instant());
      cluster.holds().expire(clock.instant());
      cluster.replacements().expire(clock.instant());
    }
    expired.forEach(this::expire);
  }

  /**
   * Ends a reservation whose time ran out. The API server's pod decides, not this view, whose
   * informer may not have delivered a binding yet: a bound pod keeps its vNPUs, its reservation
   * ended in the binding. An unbound pod's annotations are removed from the version read, so that a
   * binding landing meanwhile is not undone. A pod deleted, or replaced by another of its name, is
   * released as {@link #podRemoved} releases a deleted pod, and the other pod is left alone. When
   * the API server cannot be read or written, the reservation stands until the next pass.
   */
  private void expire(Reservations.Reservation reservation) {
    Resource<Pod> resource =
        client.pods().inNamespace(reservation.namespace()).withName(reservation.name());
    try {
      for (int attempt = 1; ; attempt++) {
        Pod current = resource.get();
        if (current == null || !current.getMetadata().getUid().equals(reservation.uid())) {
          LOG.info(
              "reservation of pod {}/{} on node {} ended: the pod is gone",
              reservation.namespace(),
              reservation.name(),
              reservation.node());
          podRemoved(reservation.uid());
          return;
        }
        if (Fabric8Views.bound(current)) {
          LOG.info(
              "reservation of pod {}/{} on node {} ended: the pod is bound to {}",
              reservation.namespace(),
              reservation.name(),
              reservation.node(),
              current.getSpec().getNodeName());
          podChanged(current);
          return;
        }
        if (patches.ifUnchanged(current, RESERVATION_REMOVED)) {
          break;
        }
        if (attempt == EXPIRY_ATTEMPTS) {
          LOG.warn(
              "pod {}/{} changed {} times while its reservation expired; trying again later",
              reservation.namespace(),
              reservation.name(),
              attempt);
          return;
        }
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "cannot end the reservation of pod {}/{} ({}); trying again later",
          reservation.namespace(),
          reservation.name(),
          e.getMessage());
      return;
    }
    LOG.info(
        "reservation of pod {}/{} on node {} expired unbound; released",
        reservation.namespace(),
        reservation.name(),
        reservation.node());
    drop(reservation.uid());
    unlock(reservation.node(), reservation.uid());
  }

  /**
   * Settles the hand-outs whose holder the device plugins found (ADR 0013): the pod that runs on an
   * allocation signed for an interchangeable pod gets that allocation signed for itself, and that
   * pod gets the holder's former allocation, so that every pod's annotations name the chips it runs
   * on. Each record is settled only when neither pod's annotations can still be read by an
   * Allocate; every step can be repeated after a crash, and the record goes last.
   */
  public void settleHandouts() {
    List<HandoutRecord> ready;
    synchronized (this) {
      ready = cluster.settleable(clock.instant());
    }
    for (HandoutRecord record : ready) {
      try {
        settle(record);
      } catch (RuntimeException e) {
        LOG.warn("cannot settle hand-out {} yet: {}", record.nonce(), e.toString());
      }
    }
  }

  private void settle(HandoutRecord record) {
    SignedAllocation handedOut = codec.decodeAllocation(record.allocation());
    String node = handedOut.allocation().node();
    Optional<Pod> holding = current(record.heldBy());
    if (holding.isEmpty()) {
      locks.settled(node, record.nonce()); // the holder is gone: nothing runs on it any more
      return;
    }
    Map<String, String> held = annotations(holding.get());
    // Pod annotations are their owners' to edit: only what this scheduler signed for that pod on
    // this node is re-signed for another pod, or charged.
    Optional<SignedAllocation> former = allocationOf(held, record.heldBy().uid(), node);
    List<ClusterView.Recharge> recharges = new ArrayList<>();
    boolean traded = former.isEmpty() || former.get().nonce().equals(record.nonce());
    Optional<PodRef> charged;
    synchronized (this) {
      charged = cluster.carrier(node, record.nonce());
    }
    for (PodRef candidate : carriers(record, charged)) {
      Optional<Pod> pod = current(candidate);
      if (pod.isEmpty()) {
        continue;
      }
      Optional<SignedAllocation> owned =
          allocationOf(annotations(pod.get()), candidate.uid(), node);
      // The ledger's carrier carries the reservation whatever its owner wrote over it since.
      boolean carries =
          owned
              .map(allocation -> allocation.nonce().equals(record.nonce()))
              .orElse(charged.filter(ref -> ref.uid().equals(candidate.uid())).isPresent());
      if (!traded && carries) {
        // The pod that carries the hand-out's reservation takes what its holder carries: a trade,
        // so that no two pods ever name one reservation.
        owned = Optional.of(resign(former.get(), candidate.uid()));
        Map<String, String> values = new HashMap<>();
        values.put(AnnotationKeys.ALLOCATION, codec.encodeAllocation(owned.get()));
        values.put(
            AnnotationKeys.DEVICES_TO_ALLOCATE, held.get(AnnotationKeys.DEVICES_TO_ALLOCATE));
        values.put(AnnotationKeys.BIND_PHASE, held.get(AnnotationKeys.BIND_PHASE));
        patches.pod(candidate.namespace(), candidate.name(), values);
        LOG.info(
            "pod {} takes the reservation of pod {}, which runs on the vNPUs reserved for it",
            candidate,
            record.heldBy());
        traded = true;
      }
      owned.ifPresent(allocation -> recharges.add(new ClusterView.Recharge(candidate, allocation)));
    }
    SignedAllocation mine = former.orElse(null);
    if (mine == null || !mine.nonce().equals(record.nonce())) {
      mine = resign(handedOut, record.heldBy().uid());
      patches.pod(
          record.heldBy().namespace(),
          record.heldBy().name(),
          Map.of(
              AnnotationKeys.ALLOCATION,
              codec.encodeAllocation(mine),
              AnnotationKeys.DEVICES_TO_ALLOCATE,
              codec.encodePending(new PendingContainers(List.of())),
              AnnotationKeys.BIND_PHASE,
              BindPhase.SUCCESS.wireName()));
      LOG.info(
          "pod {} runs on the vNPUs reserved for pod {} (interchangeable): re-signed for it",
          record.heldBy(),
          record.signedFor());
    }
    recharges.add(new ClusterView.Recharge(record.heldBy(), mine));
    // The ledger follows the annotations as they are now, whatever an earlier attempt left.
    synchronized (this) {
      cluster.recharged(recharges);
    }
    locks.settled(node, record.nonce());
  }

  /**
   * The pods other than its holder that may carry a hand-out's reservation: the pod it was signed
   * for, and {@code charged}, the pod the ledger charges with it, which differs after earlier
   * trades of a chain (c admitted on a's reservation, a on b's, b on c's, settled in any order).
   */
  private static List<PodRef> carriers(HandoutRecord record, Optional<PodRef> charged) {
    Set<PodRef> candidates = new LinkedHashSet<>();
    candidates.add(record.signedFor());
    charged.ifPresent(candidates::add);
    candidates.removeIf(pod -> pod.uid().equals(record.heldBy().uid()));
    return List.copyOf(candidates);
  }

  /** The pod {@code ref} names, if it still exists with that UID. */
  private Optional<Pod> current(PodRef ref) {
    Pod pod = client.pods().inNamespace(ref.namespace()).withName(ref.name()).get();
    return pod != null && ref.uid().equals(pod.getMetadata().getUid())
        ? Optional.of(pod)
        : Optional.empty();
  }

  /**
   * The signed allocation in {@code annotations}, if it reads, is for the pod {@code uid} on {@code
   * node} and its signature verifies; a forged or edited one is none.
   */
  private Optional<SignedAllocation> allocationOf(
      Map<String, String> annotations, String uid, String node) {
    String value = annotations.get(AnnotationKeys.ALLOCATION);
    try {
      return Optional.ofNullable(value)
          .map(codec::decodeAllocation)
          .filter(signed -> verifier.verifiesFor(signed, uid, node));
    } catch (MalformedPayloadException e) {
      return Optional.empty();
    }
  }

  /** {@code signed}'s allocation signed again for the pod {@code uid}, same node and nonce. */
  private SignedAllocation resign(SignedAllocation signed, String uid) {
    return signer.sign(signed.allocation().forPod(uid), signed.nonce());
  }

  private static Map<String, String> annotations(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    return annotations == null ? Map.of() : annotations;
  }

  // ---- decisions ----

  /**
   * For each node, whether the pod fits and, if not, why. When no node fits, the pod gets an event
   * with the reasons summed up.
   */
  public Map<String, Verdict> filter(PodManifest pod, Collection<String> nodes)
      throws SchedulingException {
    return filter(pod, nodes, Set.of());
  }

  /**
   * {@link #filter(PodManifest, Collection)} with each node seen without the vNPUs of the pods
   * {@code leaving} there: the caller's scheduler counts them as gone (being deleted, or evicted in
   * its session). What the ledger charges is unchanged.
   */
  public Map<String, Verdict> filter(PodManifest pod, Collection<String> nodes, Set<String> leaving)
      throws SchedulingException {
    Judgement judgement;
    try {
      judgement = judge(pod, nodes, leaving);
    } catch (SchedulingException e) {
      events.unschedulable(pod, e.getMessage());
      throw e;
    }
    if (judgement.unschedulable() != null) {
      events.unschedulable(pod, judgement.unschedulable());
    }
    synchronized (this) {
      judgement.rejections().values().forEach(r -> rejected.merge(r.kind(), 1L, Long::sum));
    }
    return judgement.verdicts();
  }

  /**
   * How the filter judges the pod on each node, and for each node that refuses it what would make
   * it fit ({@link Remedy}); unlike {@link #filter} it records nothing: no event, no metric.
   *
   * @param verdicts per node, as {@link #filter} answers
   * @param unschedulable the sentence of the pod's {@code VnpuUnschedulable} event; null when some
   *     node fits
   * @param remedies per refusing node with a vNPU inventory
   */
  public record Explanation(
      Map<String, Verdict> verdicts, String unschedulable, Map<String, Remedy> remedies) {}

  /** {@link Explanation} of the pod over {@code nodes}. */
  public synchronized Explanation explain(PodManifest pod, Collection<String> nodes)
      throws SchedulingException {
    Judgement judgement = judge(pod, nodes, Set.of());
    PodRequest request = request(pod);
    PlacementContext context = context();
    Map<String, Remedy> remedies = new LinkedHashMap<>();
    judgement
        .rejections()
        .forEach(
            (name, rejection) ->
                nodeFor(pod, request, name)
                    .ifPresent(
                        node ->
                            remedies.put(
                                name,
                                Remedy.of(request, HostResources.NONE, node, rejection, context))));
    return new Explanation(judgement.verdicts(), judgement.unschedulable(), remedies);
  }

  /**
   * Verdicts, the rejections of the nodes with a vNPU inventory, and why the pod fits nowhere (null
   * when it fits somewhere or no node was asked).
   */
  private record Judgement(
      Map<String, Verdict> verdicts, Map<String, Rejection> rejections, String unschedulable) {}

  private synchronized Judgement judge(
      PodManifest pod, Collection<String> nodes, Set<String> leaving) throws SchedulingException {
    PodRequest request = request(pod);
    Function<NodeState, NodeFit> feasible =
        PlacementEngine.feasibility(request, HostResources.NONE, context());
    Map<String, Verdict> verdicts = new LinkedHashMap<>();
    Map<String, Rejection> rejections = new LinkedHashMap<>();
    int unknown = 0;
    for (String name : nodes) {
      Optional<NodeState> node = nodeFor(pod, request, name).map(state -> without(state, leaving));
      if (node.isEmpty()) {
        unknown++;
        verdicts.put(
            name,
            new Verdict("node has no vNPU inventory (" + AnnotationKeys.NODE_REGISTER + ")", true));
        continue;
      }
      NodeFit fit = feasible.apply(node.get());
      if (fit instanceof NodeFit.Rejected rejected) {
        rejections.put(name, rejected.rejection());
        verdicts.put(
            name,
            new Verdict(
                rejected.rejection().phrase(), UNRESOLVABLE.contains(rejected.rejection().kind())));
      } else {
        verdicts.put(name, Verdict.FITS);
      }
    }
    String unschedulable =
        !verdicts.isEmpty() && verdicts.values().stream().noneMatch(Verdict::fits)
            ? RejectionSummary.of(nodes.size() - unknown, rejections)
                + (unknown > 0 ? "; " + unknown + " node(s) without a vNPU inventory" : "")
            : null;
    return new Judgement(verdicts, rejections, unschedulable);
  }

  SchedulerSettings settings() {
    return settings;
  }

  /** The chips of the DRA driver's nodes and what claims hold of them. */
  DraLedger dra() {
    return dra;
  }

  /** Scores 0..100 of the nodes the pod's vNPU resources fit on (others are left out). */
  public Map<String, Double> scores(PodManifest pod, Collection<String> nodes)
      throws SchedulingException {
    return scores(pod, List.of(), nodes);
  }

  /**
   * Scores 0..100 of the nodes the pod fits on (others are left out): by its vNPU resources, or,
   * asking for none, by its vNPU ResourceClaims {@code claims} (names in its namespace).
   */
  public Map<String, Double> scores(PodManifest pod, List<String> claims, Collection<String> nodes)
      throws SchedulingException {
    PodRequest request = request(pod);
    if (!request.requestsVnpus() && !claims.isEmpty()) {
      return claimScores(request, claims, nodes);
    }
    synchronized (this) {
      Function<NodeState, NodeFit> scoring =
          PlacementEngine.scoring(request, hostRequest(pod), context());
      Map<String, Double> scores = new LinkedHashMap<>();
      for (String name : nodes) {
        nodeFor(pod, request, name)
            .map(scoring)
            .filter(NodeFit.Fits.class::isInstance)
            .ifPresent(fit -> scores.put(name, ((NodeFit.Fits) fit).score()));
      }
      return scores;
    }
  }

  /**
   * The most claims of one request read from the API server: the request's names are a tenant's.
   */
  static final int MAX_CLAIMS_READ = 16;

  /**
   * Scores by the pod's claims. kube-scheduler asks once its own informer has the claims, which may
   * be before the extender's has them: those not seen yet (at most {@value #MAX_CLAIMS_READ}, each
   * a valid object name) are read from the API server, outside the scheduler's lock.
   */
  private Map<String, Double> claimScores(
      PodRequest request, List<String> claims, Collection<String> nodes) {
    List<String> unseen =
        dra.unseen(request.namespace(), claims).stream()
            .filter(KubernetesNames::isSubdomain)
            .toList();
    if (unseen.size() > MAX_CLAIMS_READ) {
      LOG.warn(
          "pod {}/{} names {} claims the extender has not seen; only {} are read",
          request.namespace(),
          request.name(),
          unseen.size(),
          MAX_CLAIMS_READ);
    }
    Map<String, ResourceClaim> read = new HashMap<>();
    for (String name : unseen.subList(0, Math.min(unseen.size(), MAX_CLAIMS_READ))) {
      ResourceClaim claim =
          client
              .resources(ResourceClaim.class)
              .inNamespace(request.namespace())
              .withName(name)
              .get();
      if (claim != null) {
        read.put(name, claim);
      }
    }
    PlacementContext context;
    synchronized (this) {
      context = context();
    }
    return dra.scores(request, claims, read, nodes, context);
  }

  /** How long a place is held for a preemptor: for its victims to go and for it to be placed. */
  static final Duration PREEMPTION_HOLD = Duration.ofMinutes(5);

  /** What the extender says to a scheduler's preemption on one node (docs/colocation.md). */
  public sealed interface Preemption {

    /** The preemptor asks for no vNPU: the extender has no say. */
    record Abstain() implements Preemption {}

    /** No eviction the extender allows makes room on the node's chips, and why. */
    record Refused(String reason) implements Preemption {}

    /**
     * The evictees that may go: the fewest offline vNPU pods that make room on a chip, and the pods
     * without vNPUs on the node, which are not the extender's to keep.
     */
    record Victims(Set<String> uids) implements Preemption {}
  }

  /**
   * Which of {@code evictees} (pod UIDs on {@code node}, offered by a scheduler's preemption) may
   * be evicted for {@code preemptor}. Online vNPU pods never are, offline vNPU pods only when they
   * make room on a chip: the fewest, then the lowest priorities, then those that lose the least
   * work ({@link VictimPlanner}). When victims are chosen, the preemptor's place is held for it
   * ({@link PreemptionHolds}).
   */
  public synchronized Preemption preemption(
      PodManifest preemptor, String node, Collection<String> evictees) throws SchedulingException {
    PodRequest request = request(preemptor);
    if (!request.requestsVnpus()) {
      return new Preemption.Abstain();
    }
    Optional<NodeState> state = nodeFor(preemptor, request, node);
    if (state.isEmpty()) {
      return new Preemption.Refused(
          "node " + node + " has no vNPU inventory (" + AnnotationKeys.NODE_REGISTER + ")");
    }
    Instant now = clock.instant();
    List<VictimPlanner.Candidate> candidates = new ArrayList<>();
    Set<String> allowed = new LinkedHashSet<>();
    for (String uid : evictees) {
      AllocationPlan plan = cluster.allocation(uid);
      if (plan == null || !plan.node().equals(node)) {
        allowed.add(uid);
        continue;
      }
      ClusterView.PodFacts facts =
          cluster.facts(uid).orElse(new ClusterView.PodFacts(0, now, null));
      candidates.add(
          new VictimPlanner.Candidate(
              plan, facts.priority(), Duration.between(facts.started(), now)));
    }
    Optional<List<VictimPlanner.Candidate>> victims =
        VictimPlanner.victims(request, HostResources.NONE, state.get(), candidates, context());
    if (victims.isEmpty()) {
      candidates.forEach(candidate -> countCandidate(candidate, false));
      return new Preemption.Refused(
          request.options().offline() != null
              ? "pod " + preemptor.name() + " is offline: it evicts no vNPU pod"
              : "evicting every offline vNPU pod on node "
                  + node
                  + " would not make room for pod "
                  + preemptor.name());
    }
    Set<String> chosen = new LinkedHashSet<>();
    victims.get().forEach(victim -> chosen.add(victim.podUid()));
    candidates.forEach(candidate -> countCandidate(candidate, chosen.contains(candidate.podUid())));
    if (!chosen.isEmpty()) {
      NodeState after = state.get();
      for (VictimPlanner.Candidate victim : victims.get()) {
        after = Ledger.without(after, victim.plan());
      }
      NodeFit.Fits place =
          (NodeFit.Fits) PlacementEngine.fit(request, HostResources.NONE, after, context());
      cluster
          .holds()
          .hold(
              new PreemptionHolds.Hold(
                  preemptor.uid(),
                  place.plan().toAllocationPlan(request),
                  chosen,
                  now.plus(PREEMPTION_HOLD)));
      LOG.info(
          "pod {}/{} may preempt {} offline vNPU pod(s) on node {}: {}",
          preemptor.namespace(),
          preemptor.name(),
          chosen.size(),
          node,
          chosen);
      events.preempting(
          preemptor,
          "evicting "
              + chosen.size()
              + " offline vNPU pod(s) on node "
              + node
              + " makes room on a chip (pod UIDs "
              + String.join(", ", chosen)
              + "); their place is held for this pod until they are gone");
    }
    allowed.addAll(chosen);
    return new Preemption.Victims(allowed);
  }

  private void countCandidate(VictimPlanner.Candidate candidate, boolean evicted) {
    String verdict =
        evicted
            ? "evicted"
            : candidate.plan().allocation().priority() == Priority.ONLINE ? "online" : "spared";
    preemptionCandidates.merge(verdict, 1L, Long::sum);
  }

  /**
   * The vNPU pods preemptions offered as victims, since start, by what became of them: {@code
   * evicted} (they made room), {@code spared} (offline, not needed) or {@code online} (never).
   */
  public synchronized Map<String, Long> preemptionCandidates() {
    return Map.copyOf(preemptionCandidates);
  }

  // ---- rebalancing (docs/rebalancing.md) ----

  /** Whether the pod validly asks for vNPUs. */
  public boolean requestsVnpus(PodManifest pod) {
    return parser.parse(pod) instanceof Validated.Valid<PodRequest> valid
        && valid.value().requestsVnpus();
  }

  /**
   * The plan the ledger allows for {@code pending}: the fewest moves of {@code candidates}, at most
   * {@code maxMoves}, after which it fits ({@link RebalancePlanner}); empty when it fits already or
   * no plan works. Of the candidates only pods whose signed allocation the ledger holds count, and
   * only those whose allocation is offline or whose priority is below {@code movableBelow}.
   */
  public synchronized Optional<RebalancePlanner.Plan> rebalancePlan(
      PodManifest pending, Collection<PodManifest> candidates, int movableBelow, int maxMoves)
      throws SchedulingException {
    PodRequest request = request(pending);
    List<NodeState> nodes = new ArrayList<>();
    for (NodeState node : cluster.ledger().nodes()) {
      nodeFor(pending, request, node.name()).ifPresent(nodes::add);
    }
    return RebalancePlanner.forPending(
            request,
            HostResources.NONE,
            nodes,
            movable(candidates, movableBelow),
            maxMoves,
            context())
        .filter(plan -> !plan.moves().isEmpty());
  }

  /**
   * Offline pods among {@code candidates} to move off nodes above {@code marks.high()} to nodes
   * below {@code marks.low()}, at most {@code maxMoves}.
   */
  public synchronized Optional<RebalancePlanner.Plan> coolingPlan(
      Collection<PodManifest> candidates, RebalancePlanner.Watermarks marks, int maxMoves) {
    return RebalancePlanner.cooling(
        cluster.ledger().nodes(),
        movable(candidates, Integer.MIN_VALUE),
        marks,
        maxMoves,
        context());
  }

  /** Allocated AI Core per node, in % of its chips ({@link RebalancePlanner#allocatedCompute}). */
  public synchronized Map<String, Double> allocatedCompute() {
    Map<String, Double> byNode = new TreeMap<>();
    cluster
        .ledger()
        .nodes()
        .forEach(n -> byNode.put(n.name(), RebalancePlanner.allocatedCompute(n)));
    return byNode;
  }

  /** The candidates whose allocation is offline or whose priority is below {@code movableBelow}. */
  private List<RebalancePlanner.Movable> movable(
      Collection<PodManifest> candidates, int movableBelow) {
    Instant now = clock.instant();
    List<RebalancePlanner.Movable> movable = new ArrayList<>();
    for (PodManifest pod : candidates) {
      AllocationPlan plan = cluster.allocation(pod.uid());
      Optional<ClusterView.PodFacts> facts = cluster.facts(pod.uid());
      Validated<PodRequest> request = parser.parse(pod);
      if (plan == null || facts.isEmpty() || request instanceof Validated.Invalid<PodRequest>) {
        continue;
      }
      if (plan.allocation().priority() == Priority.OFFLINE
          || facts.get().priority() < movableBelow) {
        movable.add(
            new RebalancePlanner.Movable(
                plan, request.orElseThrow(), Duration.between(facts.get().started(), now)));
      }
    }
    return movable;
  }

  /**
   * Reserve before evict: charges the place of every moved pod's replacement, keyed by its owner
   * and shape ({@link ReplacementHolds}), and holds {@code pending}'s place until the moved pods
   * are gone ({@link PreemptionHolds}). Returns false, holding nothing, when the ledger changed
   * since the plan was made.
   */
  public synchronized boolean holdRebalance(
      PodManifest pending, RebalancePlanner.Plan plan, Duration holdFor) {
    Instant until = clock.instant().plus(holdFor);
    List<String> held = new ArrayList<>();
    for (RebalancePlanner.Move move : plan.moves()) {
      String owner =
          ReplacementHolds.owner(
              cluster.facts(move.pod().podUid()).map(ClusterView.PodFacts::owner).orElse(null),
              move.pod().request());
      if (owner == null
          || !cluster.replacements().hold(owner, move.pod().podUid(), move.to(), until)) {
        held.forEach(uid -> cluster.replacements().cancel(uid));
        return false;
      }
      held.add(move.pod().podUid());
    }
    if (pending != null) {
      Set<String> moved = new LinkedHashSet<>(held);
      cluster.holds().hold(new PreemptionHolds.Hold(pending.uid(), plan.pending(), moved, until));
    }
    return true;
  }

  /**
   * The moves of {@code notMoved} will not happen (an eviction was refused): their replacements'
   * places go, and so does the place held for {@code pending}.
   */
  public synchronized void cancelRebalance(PodManifest pending, Collection<String> notMoved) {
    notMoved.forEach(uid -> cluster.replacements().cancel(uid));
    if (pending != null) {
      cluster.holds().drop(pending.uid());
    }
  }

  /** Counts what the rebalancer did, for the metrics. */
  void countRebalance(String what, String label) {
    rebalanceCounts.merge(what + "\n" + label, 1L, Long::sum);
  }

  /**
   * What the rebalancer did since start, keyed {@code plans\n<mode>}, {@code moves\n<mode>} and
   * {@code refusals\n<reason>}.
   */
  Map<String, Long> rebalanceCounts() {
    return Map.copyOf(rebalanceCounts);
  }

  /**
   * Places the pod on {@code node}: charges the ledger, takes the node's lock, writes the signed
   * allocation on the pod. A pod that already has its allocation on this node is left as it is; one
   * that has it on another node and is not bound is refused, not moved: Volcano's binder sends the
   * pod's annotations as its session read them ({@code pkg/scheduler/cache/cache.go
   * DefaultBinder.Bind}), and the API server writes them back onto the pod, so a binding after a
   * move would carry the old node's allocation. Volcano undoes the refused allocation with
   * deallocateFunc, and its next session finds the pod without one. When the lock or the
   * annotations cannot be written, the ledger and the lock are undone.
   */
  public AllocationPlan reserve(PodManifest pod, String node) throws SchedulingException {
    Claim claim = claim(pod, node);
    if (claim.lock() == null) {
      return claim.plan();
    }
    try {
      locks.take(node, claim.lock(), clock.instant());
    } catch (NodeLocks.RefusedException e) {
      synchronized (this) {
        if (e.heldByAnother()) {
          lockRefusals++;
        }
        cluster.forget(pod.uid());
        cluster.ledger().unlock(node, pod.uid());
      }
      throw new SchedulingException(e.getMessage());
    }
    try {
      patches.pod(
          pod.namespace(), pod.name(), allocationAnnotations(claim.plan(), claim.lock().nonce()));
    } catch (RuntimeException e) {
      synchronized (this) {
        // The patch may have been applied before its answer failed.
        cluster.unreserved(pod.uid());
        cluster.ledger().unlock(node, pod.uid());
      }
      locks.release(node, pod.uid());
      throw new SchedulingException(
          "cannot annotate pod " + pod.namespace() + "/" + pod.name() + ": " + e.getMessage());
    }
    LOG.info(
        "reserved {} for pod {}/{} on node {}{}",
        describe(claim.plan()),
        pod.namespace(),
        pod.name(),
        node,
        claim.left());
    events.allocated(pod, "vNPUs on node " + node + ": " + describe(claim.plan()) + claim.left());
    return claim.plan();
  }

  /**
   * Volcano pipelined the pod onto {@code node} ({@code framework/statement.go Pipeline}): it will
   * be placed there once the pods releasing there are gone, or placed again by a later session,
   * maybe elsewhere. Its place is held in the ledger as a preemptor's is ({@link PreemptionHolds}),
   * nothing is written to the API server: a pipelined pod is not bound, and annotations written now
   * would come back with the binding of a later session that placed it elsewhere ({@link
   * #reserve}). A place held for it there by its preemption stays as it is when its victims are
   * being evicted ({@link #evicting}); otherwise the pod must fit the node as it is, since Volcano
   * pipelines where the node's resources suffice in sum without evicting anyone.
   */
  public synchronized void pipeline(PodManifest pod, String node) throws SchedulingException {
    AllocationPlan existing = cluster.allocation(pod.uid());
    if (existing != null) {
      if (existing.node().equals(node)) {
        return;
      }
      throw alreadyPlaced(pod, existing);
    }
    if (cluster.holds().coming(pod.uid(), node)) {
      return;
    }
    PodRequest request = request(pod);
    AllocationPlan place = fit(pod, request, node).toAllocationPlan(request);
    cluster
        .holds()
        .hold(
            new PreemptionHolds.Hold(
                pod.uid(), place, Set.of(), clock.instant().plus(PREEMPTION_HOLD)));
    cluster.holds().retry();
    LOG.info(
        "pod {}/{} pipelined onto node {}: {} held for it",
        pod.namespace(),
        pod.name(),
        node,
        describe(place));
  }

  /**
   * Volcano's session evicts the pod {@code uid} ({@code Statement.Evict}, its {@code
   * deallocateFunc} with the task {@code Releasing}): a preemptor waiting for it may be pipelined
   * into the place it leaves ({@link #pipeline}).
   */
  public synchronized void evicting(String uid) {
    cluster.holds().evicting(uid);
  }

  /** A placement decided and charged; lock null when the pod already had it. */
  /**
   * A placement charged to the ledger: its plan, the node's lock for it (null when the pod already
   * had it), and what the decision left to other pods, as a clause of the pod's event.
   */
  private record Claim(AllocationPlan plan, NodeLock lock, String left) {}

  /**
   * Decides the pod's placement on {@code node} and charges it to the ledger, with the node locked
   * there for the pod, so that no other decision takes the same node before the lock is written.
   */
  private synchronized Claim claim(PodManifest pod, String node) throws SchedulingException {
    AllocationPlan existing = cluster.allocation(pod.uid());
    if (existing != null) {
      if (existing.node().equals(node)) {
        return new Claim(existing, null, "");
      }
      throw alreadyPlaced(pod, existing);
    }
    PodRequest request = request(pod);
    AllocationPlan plan = fit(pod, request, node).toAllocationPlan(request);
    cluster.holds().drop(pod.uid()); // a place held for it is its own now
    cluster.replacements().taken(replacementOwner(pod, request), node);
    if (!cluster.ledger().apply(plan)) {
      throw new SchedulingException(
          "node " + node + " changed; pod " + pod.name() + " no longer fits");
    }
    Instant now = clock.instant();
    HandoutShape shape = HandoutShape.of(request);
    NodeLock lock =
        new NodeLock(
            pod.uid(),
            pod.namespace(),
            pod.name(),
            now,
            now.plus(settings.lockTimeout()),
            AllocationSigner.nonce(),
            shape.digest(),
            shape.counts(),
            0);
    cluster.ledger().lock(node, lock);
    String left = leftScarce(request, plan);
    observe(request, cluster.reserved(pod, plan, lock.nonce(), now));
    return new Claim(plan, lock, left);
  }

  /** How the pod fits {@code node} as it sees it; refused with the reason when it does not. */
  private NodePlan fit(PodManifest pod, PodRequest request, String node)
      throws SchedulingException {
    NodeState state =
        nodeFor(pod, request, node)
            .orElseThrow(() -> new SchedulingException("node " + node + " has no vNPU inventory"));
    NodeFit fit = PlacementEngine.fit(request, HostResources.NONE, state, context());
    if (fit instanceof NodeFit.Rejected rejected) {
      this.rejected.merge(rejected.rejection().kind(), 1L, Long::sum);
      if (rejected.rejection().kind() == RejectKind.LOCKED) {
        lockRefusals++;
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

  /** Undoes a reservation: the ledger, the pod's annotations, the node's lock if it is ours. */
  public void unreserve(String namespace, String name, String uid) {
    AllocationPlan plan = drop(uid);
    if (plan == null) {
      return;
    }
    try {
      patches.pod(namespace, name, RESERVATION_REMOVED);
    } catch (RuntimeException e) {
      LOG.warn("cannot clear pod {}/{}: {}", namespace, name, e.getMessage());
    }
    unlock(plan.node(), uid);
  }

  /**
   * Drops the reservation of pod {@code uid} from the view, and any place held for it (Volcano
   * undoes a pipeline with deallocateFunc too); its plan, null without one.
   */
  private synchronized AllocationPlan drop(String uid) {
    AllocationPlan plan = cluster.allocation(uid);
    cluster.unreserved(uid);
    cluster.holds().drop(uid);
    return plan;
  }

  /** Releases {@code node}'s lock entry of pod {@code uid} if it has one. */
  private void unlock(String node, String uid) {
    if (locks.release(node, uid)) {
      synchronized (this) {
        cluster.ledger().unlock(node, uid);
      }
    }
  }

  /** Reserves and binds (kube-scheduler's bind verb). */
  public void bind(PodManifest pod, String node) throws SchedulingException {
    reserve(pod, node);
    try {
      PodBindings.bind(client, pod.namespace(), pod.name(), pod.uid(), node, Map.of());
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
  }

  /**
   * Whether the scheduler can still decide: its lock can be had within {@code within}. A decision
   * stuck holding it (the liveness probe's question) makes this false until it lets go.
   */
  public boolean responsive(Duration within) {
    Future<?> probe;
    synchronized (liveness) {
      if (livenessProbe == null) {
        livenessProbe =
            Executors.newSingleThreadExecutor(DaemonThreads.named("vnpu-scheduler-liveness"));
      }
      probe = livenessProbe.submit(this::touch);
    }
    try {
      probe.get(within.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private synchronized void touch() {}

  /** How often each reason kept a node from a pod (filters and reservations), since start. */
  public synchronized Map<RejectKind, Long> rejections() {
    return Map.copyOf(rejected);
  }

  /** Reservations refused because another pod held the node's lock, since start. */
  public synchronized long lockRefusals() {
    return lockRefusals;
  }

  /** The pods charged to the ledger, by UID (for tests and metrics). */
  public synchronized Map<String, AllocationPlan> placements() {
    return Map.copyOf(cluster.ledger().placements());
  }

  /** The ledger's nodes as they are now, by name. */
  public synchronized List<NodeState> nodes() {
    return List.copyOf(cluster.ledger().nodes());
  }

  // ---- helpers ----

  private PodRequest request(PodManifest pod) throws SchedulingException {
    Validated<PodRequest> request = parser.parse(pod);
    if (request instanceof Validated.Invalid<PodRequest> invalid) {
      throw new SchedulingException(
          "pod " + pod.namespace() + "/" + pod.name() + ": " + messages(invalid));
    }
    return request.orElseThrow();
  }

  /** What the pod requests of the host; a quantity that cannot be read refuses the pod. */
  private static HostResources hostRequest(PodManifest pod) throws SchedulingException {
    try {
      return HostRequests.of(pod);
    } catch (IllegalArgumentException e) {
      throw new SchedulingException(
          "pod " + pod.namespace() + "/" + pod.name() + ": " + e.getMessage());
    }
  }

  /** {@code node} without the vNPUs charged there to the pods {@code leaving}. */
  private NodeState without(NodeState node, Set<String> leaving) {
    NodeState seen = node;
    for (String uid : leaving) {
      AllocationPlan plan = cluster.allocation(uid);
      if (plan != null
          && plan.node().equals(node.name())
          && cluster.ledger().placements().containsKey(uid)) {
        seen = Ledger.without(seen, plan);
      }
    }
    return seen;
  }

  /**
   * The node {@code name} as the pod sees it: a place held for it there, by a preemption or for a
   * replacement of its owner's moved pod, is free for it, and so is its own reservation there that
   * no binding followed (Volcano's pipeline calls allocateFunc without binding: the pod's next
   * session must not find its own chips taken).
   */
  private Optional<NodeState> nodeFor(PodManifest pod, PodRequest request, String name) {
    String owner = replacementOwner(pod, request);
    return cluster
        .ledger()
        .node(name)
        .map(node -> cluster.holds().seenBy(pod.uid(), node))
        .map(node -> cluster.replacements().seenBy(owner, node))
        .map(node -> cluster.reserved(pod.uid()) ? without(node, Set.of(pod.uid())) : node);
  }

  private String replacementOwner(PodManifest pod, PodRequest request) {
    return ReplacementHolds.owner(
        cluster.facts(pod.uid()).map(ClusterView.PodFacts::owner).orElse(null), request);
  }

  private PlacementContext context() {
    return new PlacementContext(
        clock.instant(), settings.heartbeatTolerance(), Policies.asRequested(), meter);
  }

  /**
   * Where fragmentation-aware placed the pod off chip types scarcer than those it took, a clause
   * naming them; else empty.
   */
  private String leftScarce(PodRequest request, AllocationPlan plan) {
    if (request.options().nodePolicy() != PlacementPolicy.FRAGMENTATION_AWARE) {
      return "";
    }
    Set<String> taken = new HashSet<>();
    plan.allocation().containers().forEach(c -> c.vnpus().forEach(v -> taken.add(v.chipType())));
    List<String> left = meter.scarceTypes().leftBy(request.containers().get(0).chipTypes(), taken);
    return left.isEmpty()
        ? ""
        : "; left chip type(s) "
            + String.join(", ", left)
            + " to the pods that accept only them (scarce among the pods seen lately)";
  }

  /** Keeps the last pods' shapes; the fragmentation measure weighs placements by them. */
  private void observe(PodRequest request, HostResources host) {
    ContainerRequest first = request.containers().get(0);
    shapes.addLast(
        new WorkloadShape(
            first.count(), first.cores(), first.memoryMiB(), first.chipTypes(), host.cpuMilli()));
    if (shapes.size() > OBSERVED_SHAPES) {
      shapes.removeFirst();
    }
    meter =
        new FragmentationMeter(
            WorkloadMix.typical(new ArrayList<>(shapes), 0.9, 1), cluster.ledger().chipSupply());
  }

  private Map<String, String> allocationAnnotations(AllocationPlan plan, String nonce) {
    List<String> pending = new ArrayList<>();
    for (ContainerAllocation container : plan.allocation().containers()) {
      pending.add(container.name());
    }
    Map<String, String> values = new HashMap<>();
    values.put(
        AnnotationKeys.ALLOCATION, codec.encodeAllocation(signer.sign(plan.allocation(), nonce)));
    values.put(
        AnnotationKeys.DEVICES_TO_ALLOCATE, codec.encodePending(new PendingContainers(pending)));
    values.put(AnnotationKeys.ASSIGNED_NODE, plan.node());
    values.put(AnnotationKeys.BIND_TIME, clock.instant().toString());
    values.put(AnnotationKeys.BIND_PHASE, BindPhase.ALLOCATING.wireName());
    return values;
  }

  /** The keys {@link #allocationAnnotations} writes, each mapped to null: their removal. */
  private static Map<String, String> reservationRemoved() {
    Map<String, String> removal = new HashMap<>();
    for (String key :
        List.of(
            AnnotationKeys.ALLOCATION,
            AnnotationKeys.DEVICES_TO_ALLOCATE,
            AnnotationKeys.ASSIGNED_NODE,
            AnnotationKeys.BIND_TIME,
            AnnotationKeys.BIND_PHASE)) {
      removal.put(key, null);
    }
    return Collections.unmodifiableMap(removal);
  }

  private static String describe(AllocationPlan plan) {
    return plan.allocation().containers().stream()
        .map(
            c ->
                c.name()
                    + ": "
                    + c.vnpus().size()
                    + " vNPU(s) on chip(s) "
                    + c.vnpus().stream().map(v -> Integer.toString(v.chipIndex())).toList())
        .toList()
        .toString();
  }

  private static String messages(Validated.Invalid<?> invalid) {
    return String.join("; ", invalid.problems().stream().map(p -> p.message()).toList());
  }
}
