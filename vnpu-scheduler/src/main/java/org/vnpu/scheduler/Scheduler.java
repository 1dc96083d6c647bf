package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.engine.RejectKind;
import org.vnpu.core.engine.Remedy;
import org.vnpu.core.engine.VictimPlanner;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodManifest;

/**
 * The scheduler, as the extender protocols, the informers and the rebalancer see it: the
 * composition root of its parts (ADR 0025) and their one entry point. The state ({@link
 * SchedulerState}: the ledger the informers feed, which can be rebuilt at any time) is read and
 * charged under one lock; the decisions are the engine's; the actions write to the API server
 * outside that lock, so a slow API server delays the pod that waits for it, not every decision.
 *
 * <ul>
 *   <li>{@link ClusterIntake}: nodes and pods from the informers, signatures checked;
 *   <li>{@link NodeJudge} and {@link NodeScorer}: the filter, explanations and scores;
 *   <li>{@link PreemptionAdvisor}: which victims a preemption may take;
 *   <li>{@link PodReserver}: reserve, bind, pipeline and unreserve;
 *   <li>{@link ExpiryPass} and {@link HandoutSettlement}: the periodic passes;
 *   <li>{@link RebalancePlans}: the rebalancer's plans and holds;
 *   <li>{@link SchedulerCounters}: what the metrics count.
 * </ul>
 *
 * Host CPU and memory shape the scores; filters and reservations leave them to the schedulers,
 * which check them themselves and see pods the informers have not yet delivered.
 */
public final class Scheduler {

  private final SchedulerReader reader;
  private final SchedulerState state;
  private final DraLedger dra;
  private final SchedulerCounters counters = new SchedulerCounters();
  private final ClusterIntake intake;
  private final NodeJudge judge;
  private final NodeScorer scorer;
  private final PreemptionAdvisor preemptions;
  private final PodReserver reserver;
  private final ExpiryPass expiry;
  private final HandoutSettlement settlement;
  private final RebalanceLedger rebalancing;
  private final MonitorLiveness liveness;

  public Scheduler(
      KubernetesClient client,
      ChipCatalog catalog,
      AllocationSigner signer,
      AllocationVerifier verifier,
      SchedulerSettings settings,
      Clock clock) {
    PayloadCodec codec = new PayloadCodec();
    PodEvents events = new PodEvents(client, clock);
    this.reader =
        new SchedulerReader(
            client,
            catalog,
            verifier,
            settings,
            clock,
            new SchedulerReader.Parts(counters, events, codec));
    ClusterPort cluster = reader.cluster();
    this.state = reader.state();
    this.dra = new DraLedger(settings.draDriver(), catalog);
    this.intake = reader.intake();
    this.judge = reader.judge();
    this.scorer = new NodeScorer(state, dra, cluster);
    this.preemptions = new PreemptionAdvisor(state, counters, events);
    this.reserver =
        new PodReserver(
            state, counters, cluster, events, new ReservationAnnotations(signer, codec, clock));
    this.expiry = new ExpiryPass(state, cluster, intake, reserver);
    this.settlement = new HandoutSettlement(state, cluster, codec, signer, verifier);
    this.rebalancing = new StateRebalancing(state, counters);
    this.liveness = new MonitorLiveness(state);
  }

  // ---- the cluster, as the API server tells it ----

  /**
   * Reads every node, lock Lease and pod again: the ledger after a restart is the ledger before it.
   */
  public void rebuild() {
    reader.rebuild();
  }

  /** A node appeared or changed: its inventory and heartbeat. */
  public void nodeChanged(Node node) {
    reader.nodeChanged(node);
  }

  public void nodeRemoved(String name) {
    reader.nodeRemoved(name);
  }

  /** A node's lock Lease appeared or changed: its entries and hand-outs (ADR 0032). */
  public void locksChanged(Lease lease) {
    reader.locksChanged(lease);
  }

  public void locksRemoved(String node) {
    reader.locksRemoved(node);
  }

  /** A pod appeared or changed: its signed allocation is charged until it finishes. */
  public void podChanged(Pod pod) {
    intake.podChanged(pod);
  }

  /** A pod is gone: its vNPUs and its node's lock ({@link ClusterIntake#podRemoved}). */
  public void podRemoved(String uid) {
    intake.podRemoved(uid);
  }

  /**
   * Undoes the reservations whose pods were not bound in time (annotations, ledger and lock), and
   * ends the places held for preemptors past their time ({@link ExpiryPass}).
   */
  public void expireReservations() {
    expiry.expire();
  }

  /** Settles the hand-outs whose holder the device plugins found ({@link HandoutSettlement}). */
  public void settleHandouts() {
    settlement.settle();
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
    return judge.filter(pod, nodes, leaving);
  }

  /** {@link Explanation} of the pod over {@code nodes}: verdicts and {@link Remedy remedies}. */
  public Explanation explain(PodManifest pod, Collection<String> nodes) throws SchedulingException {
    return reader.explain(pod, nodes);
  }

  SchedulerSettings settings() {
    return state.settings();
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
    return scorer.scores(pod, claims, nodes);
  }

  /**
   * Which of {@code evictees} (pod UIDs on {@code node}, offered by a scheduler's preemption) may
   * be evicted for {@code preemptor}. Online vNPU pods never are, offline vNPU pods only when they
   * make room on a chip: the fewest, then the lowest priorities, then those that lose the least
   * work ({@link VictimPlanner}). When victims are chosen, the preemptor's place is held for it
   * ({@link PreemptionHolds}).
   */
  public Preemption preemption(PodManifest preemptor, String node, Collection<String> evictees)
      throws SchedulingException {
    return preemptions.preemption(preemptor, node, evictees);
  }

  /**
   * The vNPU pods preemptions offered as victims, since start, by what became of them: {@code
   * evicted} (they made room), {@code spared} (offline, not needed) or {@code online} (never).
   */
  public Map<String, Long> preemptionCandidates() {
    return counters.preemptionCandidates();
  }

  // ---- rebalancing (docs/rebalancing.md) ----

  /** Whether the pod validly asks for vNPUs. */
  public boolean requestsVnpus(PodManifest pod) {
    return reader.requestsVnpus(pod);
  }

  /** The rebalancer's plans, holds and counters over this scheduler's state. */
  public RebalanceLedger rebalancing() {
    return rebalancing;
  }

  /**
   * What the rebalancer did since start, keyed {@code plans\n<mode>}, {@code moves\n<mode>} and
   * {@code refusals\n<reason>}.
   */
  Map<String, Long> rebalanceCounts() {
    return counters.rebalance();
  }

  // ---- actions ----

  /**
   * Places the pod on {@code node}: charges the ledger and the node's lock entry now, and returns;
   * the signed allocation is written on the pod, then the entry on the node, after that (the future
   * completes once they are written). A pod that already has its allocation on this node is left as
   * it is; one that has it on another node and is not bound is refused, not moved: Volcano's binder
   * sends the pod's annotations as its session read them ({@code pkg/scheduler/cache/cache.go
   * DefaultBinder.Bind}), and the API server writes them back onto the pod, so a binding after a
   * move would carry the old node's allocation. Volcano undoes the refused allocation with
   * deallocateFunc, and its next session finds the pod without one. When the lock or the
   * annotations cannot be written, the ledger and the lock are undone, and the future fails with
   * the reason.
   *
   * @throws SchedulingException when the pod cannot be placed there
   */
  public CompletableFuture<AllocationPlan> reserve(PodManifest pod, String node)
      throws SchedulingException {
    return reserver.reserve(pod, node);
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
  public void pipeline(PodManifest pod, String node) throws SchedulingException {
    reserver.pipeline(pod, node);
  }

  /**
   * Volcano's session evicts the pod {@code uid} ({@code Statement.Evict}, its {@code
   * deallocateFunc} with the task {@code Releasing}): a preemptor waiting for it may be pipelined
   * into the place it leaves ({@link #pipeline}).
   */
  public void evicting(String uid) {
    reserver.evicting(uid);
  }

  /** Undoes a reservation: the ledger, the pod's annotations, the node's lock if it is ours. */
  public void unreserve(String namespace, String name, String uid) {
    reserver.unreserve(namespace, name, uid);
  }

  /** Reserves and binds (kube-scheduler's bind verb). */
  public void bind(PodManifest pod, String node) throws SchedulingException {
    reserver.bind(pod, node);
  }

  /**
   * Waits for at most {@code limit} until the writes of the reservations answered so far have
   * landed or failed: a scheduler that stops lets them land before it lets go of its informers and
   * its lease.
   *
   * @return whether they all ended within the limit
   */
  public boolean finishWrites(Duration limit) {
    return reserver.finishWrites(limit);
  }

  // ---- health and metrics ----

  /**
   * Whether the scheduler can still decide: its lock can be had within {@code within}. A decision
   * stuck holding it (the liveness probe's question) makes this false until it lets go.
   */
  public boolean responsive(Duration within) {
    return liveness.responsive(within);
  }

  /** The lock every decision holds: a test holds it to stand for a decision that does not end. */
  Object monitor() {
    return state;
  }

  /** How often each reason kept a node from a pod (filters and reservations), since start. */
  public Map<RejectKind, Long> rejections() {
    return counters.rejections();
  }

  /** Reservations refused because another pod held the node's lock, since start. */
  public long lockRefusals() {
    return counters.lockRefusals();
  }

  /** The pods charged to the ledger, by UID (for tests and metrics). */
  public Map<String, AllocationPlan> placements() {
    return reader.placements();
  }

  /** The ledger's nodes as they are now, by name. */
  public List<NodeState> nodes() {
    return reader.nodes();
  }
}
