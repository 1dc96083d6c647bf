package org.vnpu.sim.baseline;

import java.util.Arrays;
import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.sim.SimPod;

/**
 * GpuPacking ({@code gpu_packing_score.go}): shared GPUs first (100 − their free share / 10, at
 * least 50), then nodes that must open the fewest free GPUs (50 − that number, at least 33), idle
 * nodes last (33 − free GPUs, at least the number of free GPUs); pods without GPUs score 0.
 */
final class GpuPacking implements Baseline {

  @Override
  public long score(NodePlan plan, SimPod pod, PlacementContext context) {
    long milli = NodeFigures.milliPerGpu(pod);
    if (milli <= 0) {
      return 0;
    }
    NodeState node = plan.node();
    int fullyFree = NodeFigures.fullyFree(node);
    if (fullyFree == node.chips().size()) {
      return Math.max(33 - fullyFree, fullyFree);
    }
    long[] left = node.chips().stream().mapToLong(NodeFigures::gpuMilliLeft).toArray();
    long[] sorted = left.clone();
    Arrays.sort(sorted);
    int needed = NodeFigures.gpuCount(pod);
    int openedFree = 0;
    long freeRatioOnUsed = 0;
    for (long gpuLeft : sorted) {
      if (needed == 0) {
        break;
      }
      if (milli <= gpuLeft) {
        needed--;
        openedFree += gpuLeft == 1000 ? 1 : 0;
        freeRatioOnUsed += gpuLeft * 100 / 1000;
      }
    }
    if (openedFree > 0) {
      return Math.max(50 - openedFree, 33);
    }
    return Math.max(100 - freeRatioOnUsed / 10, 50);
  }
}
