package org.vnpu.scheduler;

import java.time.Clock;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.policy.Policies;
import org.vnpu.core.request.HostRequests;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;
import org.vnpu.core.request.RequestParser;
import org.vnpu.core.validation.Validated;

/**
 * The scheduler's state, and its one monitor: the {@link ClusterView} the informers feed and the
 * mix of pods placed lately, and how a pod sees a node of it. Every part of the scheduler reads and
 * charges the state holding this object's lock, and calls the API server without it (ADR 0025), so
 * a slow API server delays the pod that waits for it, not every decision. Methods that read the
 * view expect the caller to hold the lock.
 */
final class SchedulerState {

  private final ClusterView cluster;
  private final ObservedMix mix = new ObservedMix();
  private final RequestParser parser;
  private final SchedulerSettings settings;
  private final Clock clock;

  SchedulerState(ChipCatalog catalog, PayloadCodec codec, SchedulerSettings settings, Clock clock) {
    this.cluster = new ClusterView(catalog, codec, settings, clock);
    this.parser =
        new RequestParser(catalog, settings.podDefaults(), settings.onlinePriorityThreshold());
    this.settings = settings;
    this.clock = clock;
  }

  ClusterView cluster() {
    return cluster;
  }

  ObservedMix mix() {
    return mix;
  }

  RequestParser parser() {
    return parser;
  }

  SchedulerSettings settings() {
    return settings;
  }

  Clock clock() {
    return clock;
  }

  /** Whether the pod validly asks for vNPUs. */
  boolean requestsVnpus(PodManifest pod) {
    return parser.parse(pod) instanceof Validated.Valid<PodRequest> valid
        && valid.value().requestsVnpus();
  }

  /** The pod's vNPU request; a pod whose request does not read is refused with its problems. */
  PodRequest request(PodManifest pod) throws SchedulingException {
    Validated<PodRequest> request = parser.parse(pod);
    if (request instanceof Validated.Invalid<PodRequest> invalid) {
      throw new SchedulingException(
          "pod " + pod.namespace() + "/" + pod.name() + ": " + invalid.messages());
    }
    return request.orElseThrow();
  }

  /** What the pod requests of the host; a quantity that cannot be read refuses the pod. */
  static HostResources hostRequest(PodManifest pod) throws SchedulingException {
    try {
      return HostRequests.of(pod);
    } catch (IllegalArgumentException e) {
      throw new SchedulingException(
          "pod " + pod.namespace() + "/" + pod.name() + ": " + e.getMessage());
    }
  }

  /**
   * The node {@code name} as the pod sees it: a place held for it there, by a preemption or for a
   * replacement of its owner's moved pod, is free for it, and so is its own reservation there that
   * no binding followed (Volcano's pipeline calls allocateFunc without binding: the pod's next
   * session must not find its own chips taken).
   */
  Optional<NodeState> nodeFor(PodManifest pod, PodRequest request, String name) {
    return cluster.ledger().node(name).map(sight(pod, request));
  }

  /** {@link #nodeFor} of any node: what the pod's holds and reservation are, read once. */
  private UnaryOperator<NodeState> sight(PodManifest pod, PodRequest request) {
    String owner = replacementOwner(pod, request);
    UnaryOperator<NodeState> holds = cluster.holds().sightOf(pod.uid());
    boolean reserved = cluster.reserved(pod.uid());
    return node -> {
      NodeState seen = cluster.replacements().seenBy(owner, holds.apply(node));
      return reserved ? without(seen, Set.of(pod.uid())) : seen;
    };
  }

  /**
   * The nodes {@code names} as the pod sees them ({@link #nodeFor}, without the pods {@code
   * leaving}), and what decisions weigh, taken at one instant under the lock. Both are immutable:
   * the filter and the scores are worked out on them without the lock, so that Volcano's 16
   * predicate workers ({@code predicate_helper.go} PredicateNodes) and its prioritize over every
   * node do not keep allocateFunc, which charges under the lock, waiting.
   */
  Snapshot snapshot(
      PodManifest pod, PodRequest request, Collection<String> names, Set<String> leaving) {
    Map<String, NodeState> nodes = new LinkedHashMap<>();
    synchronized (this) {
      UnaryOperator<NodeState> sight = sight(pod, request);
      for (String name : names) {
        cluster
            .ledger()
            .node(name)
            .map(sight)
            .map(node -> without(node, leaving))
            .ifPresent(node -> nodes.put(name, node));
      }
      return new Snapshot(context(), nodes);
    }
  }

  /** See {@link #snapshot}: the nodes with a vNPU inventory, by name, in the order asked. */
  record Snapshot(PlacementContext context, Map<String, NodeState> nodes) {}

  /** {@code node} without the vNPUs charged there to the pods {@code leaving}. */
  NodeState without(NodeState node, Set<String> leaving) {
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

  /** The key under which a replacement of the pod's owner finds a place held for it, or null. */
  String replacementOwner(PodManifest pod, PodRequest request) {
    return ReplacementHolds.owner(
        cluster.facts(pod.uid()).map(PodFacts::owner).orElse(null), request);
  }

  /** What placement decisions weigh now: the time, heartbeats, policies and the observed mix. */
  PlacementContext context() {
    return new PlacementContext(
        clock.instant(), settings.heartbeatTolerance(), Policies.asRequested(), mix.meter());
  }

  /** Keeps the placed pod's shape in the mix the fragmentation measure weighs by. */
  void observe(PodRequest request, HostResources host) {
    mix.observe(request, host, cluster.ledger().chipSupply());
  }
}
