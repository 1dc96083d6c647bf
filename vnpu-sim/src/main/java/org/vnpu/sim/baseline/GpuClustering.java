package org.vnpu.sim.baseline;

import java.util.HashMap;
import java.util.Map;
import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.sim.SimPod;

/**
 * GpuClustering ({@code gpu_clustering_score.go}): nodes hosting only pods of the same GPU request
 * first (75..100), then nodes hosting that request among others (50..75), idle nodes (25..50),
 * others (0..25); within a tier less free GPU first. A pod's "affinity" is {@code share-gpu} for a
 * share of one GPU, else its GPU count (the artifact's {@code ShareGpuTag}); pods without GPUs
 * score 0.
 */
final class GpuClustering implements Baseline {

  private final Map<String, Map<String, Integer>> affinities = new HashMap<>();

  @Override
  public long score(NodePlan plan, SimPod pod, PlacementContext context) {
    String tag = tag(pod);
    if (tag == null) {
      return 0;
    }
    Map<String, Integer> onNode = affinities.getOrDefault(plan.node().name(), Map.of());
    long fullness = 25 * (8000 - NodeFigures.gpuMilliLeft(plan.node())) / 8000;
    if (onNode.containsKey(tag)) {
      return fullness + (onNode.size() == 1 ? 75 : 50);
    }
    return fullness + (onNode.isEmpty() ? 25 : 0);
  }

  @Override
  public void placed(SimPod pod, AllocationPlan plan) {
    String tag = tag(pod);
    if (tag != null) {
      affinities.computeIfAbsent(plan.node(), n -> new HashMap<>()).merge(tag, 1, Integer::sum);
    }
  }

  private static String tag(SimPod pod) {
    long milli = NodeFigures.milliPerGpu(pod);
    if (milli <= 0) {
      return null;
    }
    return milli < 1000 ? "share-gpu" : NodeFigures.gpuCount(pod) + "-gpu";
  }
}
