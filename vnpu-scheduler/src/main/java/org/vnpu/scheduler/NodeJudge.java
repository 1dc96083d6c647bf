package org.vnpu.scheduler;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.core.engine.NodeFit;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.engine.RejectKind;
import org.vnpu.core.engine.Rejection;
import org.vnpu.core.engine.RejectionSummary;
import org.vnpu.core.engine.Remedy;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;

/**
 * Whether a pod's vNPUs fit each node (the filter), and why not: the engine's feasibility over the
 * nodes as the pod sees them. The filter counts what refused nodes and tells a pod that fits
 * nowhere with an event; an explanation records nothing.
 */
final class NodeJudge {

  private static final Set<RejectKind> UNRESOLVABLE =
      Set.of(RejectKind.MODE_MISMATCH, RejectKind.CHIP_TYPE_NOT_FOUND, RejectKind.DIE_ID_NOT_FOUND);

  private final SchedulerState state;
  private final SchedulerCounters counters;
  private final EventSink events;

  NodeJudge(SchedulerState state, SchedulerCounters counters, EventSink events) {
    this.state = state;
    this.counters = counters;
    this.events = events;
  }

  /** See {@link Scheduler#filter(PodManifest, Collection, Set)}. */
  Map<String, Verdict> filter(PodManifest pod, Collection<String> nodes, Set<String> leaving)
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
    judgement.rejections().values().forEach(r -> counters.rejected(r.kind()));
    return judgement.verdicts();
  }

  /** {@link Explanation} of the pod over {@code nodes}. */
  Explanation explain(PodManifest pod, Collection<String> nodes) throws SchedulingException {
    synchronized (state) {
      Judgement judgement = judge(pod, nodes, Set.of());
      PodRequest request = state.request(pod);
      PlacementContext context = state.context();
      Map<String, Remedy> remedies = new LinkedHashMap<>();
      judgement
          .rejections()
          .forEach(
              (name, rejection) ->
                  state
                      .nodeFor(pod, request, name)
                      .ifPresent(
                          node ->
                              remedies.put(
                                  name,
                                  Remedy.of(
                                      request, HostResources.NONE, node, rejection, context))));
      return new Explanation(judgement.verdicts(), judgement.unschedulable(), remedies);
    }
  }

  /**
   * Verdicts, the rejections of the nodes with a vNPU inventory, and why the pod fits nowhere (null
   * when it fits somewhere or no node was asked).
   */
  private record Judgement(
      Map<String, Verdict> verdicts, Map<String, Rejection> rejections, String unschedulable) {}

  private Judgement judge(PodManifest pod, Collection<String> nodes, Set<String> leaving)
      throws SchedulingException {
    // The names are the caller's: one named twice is judged and counted once.
    Set<String> names = new LinkedHashSet<>(nodes);
    PodRequest request = state.request(pod);
    SchedulerState.Snapshot seen = state.snapshot(pod, request, names, leaving);
    Function<NodeState, NodeFit> feasible =
        PlacementEngine.feasibility(request, HostResources.NONE, seen.context());
    Map<String, Verdict> verdicts = new LinkedHashMap<>();
    Map<String, Rejection> rejections = new LinkedHashMap<>();
    int unknown = 0;
    for (String name : names) {
      NodeState node = seen.nodes().get(name);
      if (node == null) {
        unknown++;
        verdicts.put(
            name,
            new Verdict("node has no vNPU inventory (" + AnnotationKeys.NODE_REGISTER + ")", true));
        continue;
      }
      NodeFit fit = feasible.apply(node);
      if (fit instanceof NodeFit.Rejected rejected) {
        Rejection rejection = rejected.rejection();
        rejections.put(name, rejection);
        verdicts.put(
            name, new Verdict(rejection.phrase(), UNRESOLVABLE.contains(rejection.kind())));
      } else {
        verdicts.put(name, Verdict.FITS);
      }
    }
    String unschedulable =
        !verdicts.isEmpty() && verdicts.values().stream().noneMatch(Verdict::fits)
            ? RejectionSummary.of(names.size() - unknown, rejections)
                + (unknown > 0 ? "; " + unknown + " node(s) without a vNPU inventory" : "")
            : null;
    return new Judgement(verdicts, rejections, unschedulable);
  }
}
