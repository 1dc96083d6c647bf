package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.engine.Remedy;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodManifest;
import org.vnpu.kube.NodeLocks;

/**
 * The scheduler's state as the informers feed it, and the decisions that only read it. It holds no
 * signing key: read-only commands ({@code vnpu get}, {@code vnpu why}) rebuild one from the cluster
 * and ask it what the scheduler would answer, and the {@link Scheduler} is one plus its actions.
 */
public final class SchedulerReader {

  private final KubernetesClient client;
  private final SchedulerState state;
  private final NodeLocks locks;
  private final ClusterPort cluster;
  private final ClusterIntake intake;
  private final NodeJudge judge;

  public SchedulerReader(
      KubernetesClient client,
      ChipCatalog catalog,
      AllocationVerifier verifier,
      SchedulerSettings settings,
      Clock clock) {
    this(
        client,
        catalog,
        verifier,
        settings,
        clock,
        new Parts(new SchedulerCounters(), new PodEvents(client, clock), new PayloadCodec()));
  }

  /**
   * What a reader shares with the {@link Scheduler} built on it: the counters, the events' writer
   * and the codec. The cluster port is shared too ({@link #cluster}), as {@link NodeLocks}
   * serialises its writes per node.
   */
  record Parts(SchedulerCounters counters, EventSink events, PayloadCodec codec) {}

  SchedulerReader(
      KubernetesClient client,
      ChipCatalog catalog,
      AllocationVerifier verifier,
      SchedulerSettings settings,
      Clock clock,
      Parts parts) {
    this.client = client;
    this.state = new SchedulerState(catalog, parts.codec(), settings, clock);
    this.locks = new NodeLocks(client, parts.codec());
    this.cluster = new KubeClusterPort(client, locks);
    this.intake = new ClusterIntake(state, verifier, parts.codec(), cluster);
    this.judge = new NodeJudge(state, parts.counters(), parts.events());
  }

  /**
   * The rebalancer's plans over this reader's state, for a preview: {@link
   * RebalanceController#preview} runs in dry-run, which never holds.
   */
  public RebalanceLedger rebalancePreview() {
    return new StateRebalancing(state, new SchedulerCounters());
  }

  /** The cluster's node locks and pods, as the actions built on this reader write them. */
  ClusterPort cluster() {
    return cluster;
  }

  SchedulerState state() {
    return state;
  }

  ClusterIntake intake() {
    return intake;
  }

  NodeJudge judge() {
    return judge;
  }

  /**
   * Reads every node, lock Lease and pod again: the state after a restart is the state before it.
   */
  public void rebuild() {
    client.nodes().list().getItems().forEach(intake::nodeChanged);
    client
        .resources(Lease.class)
        .inNamespace(NodeLocks.NAMESPACE)
        .list()
        .getItems()
        .forEach(this::locksChanged);
    client.pods().inAnyNamespace().list().getItems().forEach(intake::podChanged);
  }

  /** A node appeared or changed: its inventory and heartbeat for the ledger. */
  void nodeChanged(Node node) {
    intake.nodeChanged(node);
  }

  /** A node was deleted: gone from the ledger. */
  void nodeRemoved(String name) {
    intake.nodeRemoved(name);
  }

  /**
   * A node's lock Lease appeared or changed: its entries and hand-outs for the ledger (a value that
   * cannot be decoded holds nothing, {@link NodeLocks#held}), and the start of this scheduler's
   * next write of its locks ({@link NodeLocks#seen}).
   */
  void locksChanged(Lease lease) {
    locks.seen(lease);
    intake.locksChanged(lease.getMetadata().getName(), locks.held(lease));
  }

  /** A node's lock Lease was deleted: gone from the ledger and from where lock writes start. */
  void locksRemoved(String node) {
    locks.forget(node);
    intake.locksRemoved(node);
  }

  /** Whether the pod validly asks for vNPUs. */
  public boolean requestsVnpus(PodManifest pod) {
    return state.requestsVnpus(pod);
  }

  /**
   * {@link Explanation} of the pod over {@code nodes}: verdicts and {@link Remedy remedies}. It
   * records nothing: no event, no metric.
   */
  public Explanation explain(PodManifest pod, Collection<String> nodes) throws SchedulingException {
    return judge.explain(pod, nodes);
  }

  /** The pods charged to the ledger, by UID. */
  public Map<String, AllocationPlan> placements() {
    synchronized (state) {
      return Map.copyOf(state.cluster().ledger().placements());
    }
  }

  /** The ledger's nodes as they are now. */
  public List<NodeState> nodes() {
    synchronized (state) {
      return List.copyOf(state.cluster().ledger().nodes());
    }
  }
}
