package org.vnpu.sim.baseline;

import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.Scorer;
import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;

/**
 * The artifact's best-fit GPU selection: the GPU with the least free capacity that fits, the lowest
 * index among equals; whole GPUs from the lowest index.
 */
final class BestFitChips implements Scorer {

  @Override
  public double chipScore(
      NodeState node,
      ChipState[] working,
      int position,
      ChipDemand demand,
      HostResources hostAfter,
      PlacementContext context) {
    return -working[position].freeComputePercent();
  }

  @Override
  public double nodeScore(
      NodeState before, ChipState[] after, HostResources hostAfter, PlacementContext context) {
    return 0;
  }
}
