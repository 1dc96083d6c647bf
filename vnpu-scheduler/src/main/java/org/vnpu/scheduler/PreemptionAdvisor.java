package org.vnpu.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.Priority;
import org.vnpu.core.engine.NodeFit;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.engine.VictimPlanner;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;

/**
 * The extender's word on a scheduler's preemption: which of the pods it offers may be evicted for a
 * preemptor, chosen by {@link VictimPlanner}, and the preemptor's place held for it when victims
 * are chosen ({@link PreemptionHolds}).
 */
final class PreemptionAdvisor {

  private static final Logger LOG = LoggerFactory.getLogger(PreemptionAdvisor.class);

  private final SchedulerState state;
  private final ClusterView cluster;
  private final SchedulerCounters counters;
  private final EventSink events;

  PreemptionAdvisor(SchedulerState state, SchedulerCounters counters, EventSink events) {
    this.state = state;
    this.cluster = state.cluster();
    this.counters = counters;
    this.events = events;
  }

  /** See {@link Scheduler#preemption}. */
  Preemption preemption(PodManifest preemptor, String node, Collection<String> evictees)
      throws SchedulingException {
    synchronized (state) {
      PodRequest request = state.request(preemptor);
      if (!request.requestsVnpus()) {
        return new Preemption.Abstain();
      }
      Optional<NodeState> seen = state.nodeFor(preemptor, request, node);
      if (seen.isEmpty()) {
        return new Preemption.Refused(
            "node " + node + " has no vNPU inventory (" + AnnotationKeys.NODE_REGISTER + ")");
      }
      Instant now = state.clock().instant();
      List<VictimPlanner.Candidate> candidates = new ArrayList<>();
      Set<String> allowed = new LinkedHashSet<>();
      for (String uid : evictees) {
        AllocationPlan plan = cluster.allocation(uid);
        if (plan == null || !plan.node().equals(node)) {
          allowed.add(uid);
          continue;
        }
        PodFacts facts = cluster.facts(uid).orElse(new PodFacts(0, now, null));
        candidates.add(
            new VictimPlanner.Candidate(
                plan, facts.priority(), Duration.between(facts.started(), now)));
      }
      Optional<List<VictimPlanner.Candidate>> victims =
          VictimPlanner.victims(
              request, HostResources.NONE, seen.get(), candidates, state.context());
      if (victims.isEmpty()) {
        candidates.forEach(candidate -> count(candidate, false));
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
      candidates.forEach(candidate -> count(candidate, chosen.contains(candidate.podUid())));
      if (!chosen.isEmpty()) {
        hold(preemptor, request, seen.get(), victims.get(), chosen, now);
      }
      allowed.addAll(chosen);
      return new Preemption.Victims(allowed);
    }
  }

  /** Holds the preemptor's place on {@code node} once {@code victims} are gone, and says so. */
  private void hold(
      PodManifest preemptor,
      PodRequest request,
      NodeState node,
      List<VictimPlanner.Candidate> victims,
      Set<String> chosen,
      Instant now) {
    NodeState after = node;
    for (VictimPlanner.Candidate victim : victims) {
      after = Ledger.without(after, victim.plan());
    }
    NodeFit.Fits place =
        (NodeFit.Fits) PlacementEngine.fit(request, HostResources.NONE, after, state.context());
    cluster
        .holds()
        .hold(
            new PreemptionHolds.Hold(
                preemptor.uid(),
                place.plan().toAllocationPlan(request),
                chosen,
                now.plus(PreemptionHolds.HOLD)));
    LOG.info(
        "pod {}/{} may preempt {} offline vNPU pod(s) on node {}: {}",
        preemptor.namespace(),
        preemptor.name(),
        chosen.size(),
        node.name(),
        chosen);
    events.preempting(
        preemptor,
        "evicting "
            + chosen.size()
            + " offline vNPU pod(s) on node "
            + node.name()
            + " makes room on a chip (pod UIDs "
            + String.join(", ", chosen)
            + "); their place is held for this pod until they are gone");
  }

  private void count(VictimPlanner.Candidate candidate, boolean evicted) {
    counters.preemptionCandidate(
        evicted
            ? "evicted"
            : candidate.plan().allocation().priority() == Priority.ONLINE ? "online" : "spared");
  }
}
