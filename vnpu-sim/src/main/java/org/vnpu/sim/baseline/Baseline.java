package org.vnpu.sim.baseline;

import org.vnpu.core.engine.ChipScorer;
import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.sim.SimPod;

/** One of the paper's score plugins, with the GPU selection its runs used. */
public interface Baseline {

  /**
   * The artifact's default GPU selection ({@code best}): the GPU with the least free capacity that
   * fits, the lowest index among equals; whole GPUs from the lowest index.
   */
  ChipScorer BEST_FIT_GPU =
      (candidate, context) -> -candidate.working()[candidate.position()].freeComputePercent();

  /** Which chip of a node a vNPU takes. */
  default ChipScorer chipScorer() {
    return BEST_FIT_GPU;
  }

  /** The plugin's whole-number score of the planned node, before any normalisation. */
  long score(NodePlan plan, SimPod pod, PlacementContext context);

  /** Whether the plugin rescales its scores to 0..100 over the feasible nodes. */
  default boolean normalizes() {
    return false;
  }

  /** Told after the pod was placed, for plugins that remember the pods on each node. */
  default void placed(SimPod pod, AllocationPlan plan) {}
}
