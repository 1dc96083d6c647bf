package org.vnpu.sim.baseline;

import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.sim.SimPod;

/**
 * BestFit ({@code best_fit_score.go}): 100 × (1 − ½·CPU left after / 128 CPUs − ½·GPU left after /
 * 8 GPUs), min-max normalised over the feasible nodes.
 */
final class BestFit implements Baseline {

  @Override
  public long score(NodePlan plan, SimPod pod, PlacementContext context) {
    NodeState node = plan.node();
    double cpu = (node.hostFree().cpuMilli() - pod.host().cpuMilli()) / NodeFigures.MAX_CPU_MILLI;
    double gpu =
        (NodeFigures.gpuMilliLeft(node) - NodeFigures.gpuMilliRequest(pod))
            / NodeFigures.MAX_GPU_MILLI;
    return (long) ((1 - (0.5 * cpu + 0.5 * gpu)) * 100);
  }

  @Override
  public boolean normalizes() {
    return true;
  }
}
