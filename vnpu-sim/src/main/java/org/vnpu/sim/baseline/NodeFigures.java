package org.vnpu.sim.baseline;

import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.sim.SimPod;

/** The quantities the paper's plugins compute with, in its units (GPU milli, CPU milli). */
final class NodeFigures {

  /** The artifact's normalisers: 128 CPUs and 8 GPUs. */
  static final double MAX_CPU_MILLI = 128_000;

  static final double MAX_GPU_MILLI = 8_000;

  private NodeFigures() {}

  static long gpuMilliLeft(ChipState chip) {
    return Math.round(chip.freeComputePercent() * 10);
  }

  static long gpuMilliLeft(NodeState node) {
    long sum = 0;
    for (ChipState chip : node.chips()) {
      sum += gpuMilliLeft(chip);
    }
    return sum;
  }

  static int fullyFree(NodeState node) {
    int free = 0;
    for (ChipState chip : node.chips()) {
      free += gpuMilliLeft(chip) == 1000 ? 1 : 0;
    }
    return free;
  }

  static long gpuMilliRequest(SimPod pod) {
    return pod.computePercent() * 10;
  }

  /** GPU milli per GPU of the pod; 0 for a pod without GPUs. */
  static long milliPerGpu(SimPod pod) {
    return pod.request().containers().isEmpty()
        ? 0
        : pod.request().containers().get(0).cores() * 10L;
  }

  static int gpuCount(SimPod pod) {
    return pod.request().containers().stream().mapToInt(ContainerRequest::count).sum();
  }

  static double sigmoid(double x) {
    return 1 / (1 + Math.exp(-x));
  }
}
