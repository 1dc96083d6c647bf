package org.vnpu.core.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.ledger.NodeTable;
import org.vnpu.core.request.PodRequest;

/**
 * Filter, score and allocate: a snapshot and a request in, a decision out. Ties between nodes break
 * by node name, so the same snapshot always gives the same decision.
 */
public final class PlacementEngine {

  private PlacementEngine() {}

  /** Whether {@code node} can take the pod, with its plan and score or the reason it cannot. */
  public static NodeFit fit(
      PodRequest request, HostResources host, NodeState node, PlacementContext context) {
    return new NodePlanner.ForPod(request, host, context).fit(node);
  }

  /** The question a prioritize asks of many nodes: whether each can take the pod, and its score. */
  public static Function<NodeState, NodeFit> scoring(
      PodRequest request, HostResources host, PlacementContext context) {
    return new NodePlanner.ForPod(request, host, context)::fit;
  }

  /**
   * The question a filter asks of many nodes: whether each can take the pod, without ranking them
   * (a fitting plan's score is NaN), so the cost of scoring is left to the nodes that are scored.
   */
  public static Function<NodeState, NodeFit> feasibility(
      PodRequest request, HostResources host, PlacementContext context) {
    return new NodePlanner.ForPod(request, host, context)::feasible;
  }

  /**
   * Scores closer than this are equal, and the node named first wins: rounding differs between a
   * score and its bound.
   */
  static final double SCORE_TOLERANCE = 1e-9;

  /** {@link #place(PodRequest, HostResources, NodeTable, PlacementContext)} over {@code nodes}. */
  public static Decision place(
      PodRequest request,
      HostResources host,
      Collection<NodeState> nodes,
      PlacementContext context) {
    return place(request, host, NodeTable.of(nodes), context);
  }

  /**
   * The best node for the pod, or why there is none. Once a node fits, a node is planned only when
   * its policy's bound, read from the table's columns, says it could beat the best so far.
   */
  public static Decision place(
      PodRequest request, HostResources host, NodeTable nodes, PlacementContext context) {
    NodeFit.Fits best = null;
    List<Map.Entry<String, Rejection>> rejections = new ArrayList<>();
    NodePlanner.ForPod planning = new NodePlanner.ForPod(request, host, context);
    for (int row = 0; row < nodes.size(); row++) {
      NodeState node = nodes.node(row);
      if (best != null && !better(planning.bound(nodes, row, best), node, best)) {
        continue;
      }
      NodeFit fit = planning.fit(node);
      if (fit instanceof NodeFit.Rejected rejected) {
        if (best == null) {
          rejections.add(Map.entry(node.name(), rejected.rejection()));
        }
        continue;
      }
      NodeFit.Fits fits = (NodeFit.Fits) fit;
      if (best == null || better(fits.score(), node, best)) {
        best = fits;
      }
    }
    if (best == null) {
      Map<String, Rejection> byNode = new LinkedHashMap<>();
      rejections.forEach(entry -> byNode.put(entry.getKey(), entry.getValue()));
      return new Decision.Unschedulable(nodes.size(), byNode);
    }
    return new Decision.Placed(best.plan().toAllocationPlan(request), best.score());
  }

  /**
   * Whether {@code score} on {@code node} beats {@code best}: higher, or tied and named first. The
   * name is read only on a tie: most nodes lose on their score, and reading a name is one more
   * object per node.
   */
  static boolean better(double score, NodeState node, NodeFit.Fits best) {
    int by = compare(score, best.score());
    return by > 0 || (by == 0 && node.name().compareTo(best.plan().node().name()) < 0);
  }

  /**
   * Of nodes' scores, the node {@link #place} would choose among them: the highest score, a tie to
   * the node named first; empty when there is none.
   */
  public static Optional<String> best(Map<String, Double> scores) {
    String best = null;
    double bestScore = 0;
    for (Map.Entry<String, Double> node : scores.entrySet()) {
      int by = best == null ? 1 : compare(node.getValue(), bestScore);
      if (by > 0 || (by == 0 && node.getKey().compareTo(best) < 0)) {
        best = node.getKey();
        bestScore = node.getValue();
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * 1, 0 or -1 as {@code score} is above, within {@link #SCORE_TOLERANCE} of, or below {@code of}.
   */
  private static int compare(double score, double of) {
    double by = score - of;
    return by > SCORE_TOLERANCE ? 1 : by < -SCORE_TOLERANCE ? -1 : 0;
  }
}
