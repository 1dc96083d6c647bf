package org.vnpu.sim.baseline;

import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.sim.SimPod;

/**
 * DotProduct ({@code dot_product_score.go}, Tetris): 100 × (1 − mean of the products of the node's
 * free and the pod's requested CPU and GPU, each over its maximum); GPU dimensions merged. The
 * artifact's merged mode names no GPU; best fit is assumed.
 */
final class DotProduct implements Baseline {

  @Override
  public long score(NodePlan plan, SimPod pod, PlacementContext context) {
    NodeState node = plan.node();
    double cpu =
        node.hostFree().cpuMilli()
            / NodeFigures.MAX_CPU_MILLI
            * (pod.host().cpuMilli() / NodeFigures.MAX_CPU_MILLI);
    double gpu =
        NodeFigures.gpuMilliLeft(node)
            / NodeFigures.MAX_GPU_MILLI
            * (NodeFigures.gpuMilliRequest(pod) / NodeFigures.MAX_GPU_MILLI);
    return (long) (100 * (1 - (cpu + gpu) / 2));
  }
}
