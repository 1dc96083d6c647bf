package org.vnpu.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.vnpu.api.Priority;
import org.vnpu.core.engine.RebalancePlanner;
import org.vnpu.core.engine.Watermarks;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;
import org.vnpu.core.validation.Validated;

/**
 * The rebalancer's view of the state (docs/rebalancing.md): the plans {@link RebalancePlanner}
 * makes over the ledger, and reserve before evict, the places a plan's moves and its pending pod
 * are held in until the moved pods are gone.
 */
final class RebalancePlans {

  private final SchedulerState state;
  private final ClusterView cluster;

  RebalancePlans(SchedulerState state) {
    this.state = state;
    this.cluster = state.cluster();
  }

  /** See {@link Scheduler#rebalancePlan}. */
  Optional<RebalancePlanner.Plan> forPending(
      PodManifest pending, Collection<PodManifest> candidates, int movableBelow, int maxMoves)
      throws SchedulingException {
    synchronized (state) {
      PodRequest request = state.request(pending);
      List<NodeState> nodes = new ArrayList<>();
      for (NodeState node : cluster.ledger().nodes()) {
        state.nodeFor(pending, request, node.name()).ifPresent(nodes::add);
      }
      return RebalancePlanner.forPending(
              request,
              HostResources.NONE,
              nodes,
              movable(candidates, movableBelow),
              maxMoves,
              state.context())
          .filter(plan -> !plan.moves().isEmpty());
    }
  }

  /** See {@link Scheduler#coolingPlan}. */
  Optional<RebalancePlanner.Plan> cooling(
      Collection<PodManifest> candidates, Watermarks marks, int maxMoves) {
    synchronized (state) {
      return RebalancePlanner.cooling(
          cluster.ledger().nodes(),
          movable(candidates, Integer.MIN_VALUE),
          marks,
          maxMoves,
          state.context());
    }
  }

  /** Allocated AI Core per node, in % of its chips ({@link RebalancePlanner#allocatedCompute}). */
  Map<String, Double> allocatedCompute() {
    Map<String, Double> byNode = new TreeMap<>();
    synchronized (state) {
      cluster
          .ledger()
          .nodes()
          .forEach(n -> byNode.put(n.name(), RebalancePlanner.allocatedCompute(n)));
    }
    return byNode;
  }

  /** The candidates whose allocation is offline or whose priority is below {@code movableBelow}. */
  private List<RebalancePlanner.Movable> movable(
      Collection<PodManifest> candidates, int movableBelow) {
    Instant now = state.clock().instant();
    List<RebalancePlanner.Movable> movable = new ArrayList<>();
    for (PodManifest pod : candidates) {
      AllocationPlan plan = cluster.allocation(pod.uid());
      Optional<PodFacts> facts = cluster.facts(pod.uid());
      Validated<PodRequest> request = state.parser().parse(pod);
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

  /** See {@link Scheduler#holdRebalance}. */
  boolean hold(PodManifest pending, RebalancePlanner.Plan plan, Duration holdFor) {
    synchronized (state) {
      Instant until = state.clock().instant().plus(holdFor);
      List<String> held = new ArrayList<>();
      for (RebalancePlanner.Move move : plan.moves()) {
        String owner =
            ReplacementHolds.owner(
                cluster.facts(move.pod().podUid()).map(PodFacts::owner).orElse(null),
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
  }

  /** See {@link Scheduler#cancelRebalance}. */
  void cancel(PodManifest pending, Collection<String> notMoved) {
    synchronized (state) {
      notMoved.forEach(uid -> cluster.replacements().cancel(uid));
      if (pending != null) {
        cluster.holds().drop(pending.uid());
      }
    }
  }
}
