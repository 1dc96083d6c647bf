package org.vnpu.sim.experiment;

import java.util.Optional;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.sim.SimPod;

/** A scheduling policy under test: chooses where each arriving pod goes. One instance per run. */
public interface Contender {

  /** Where {@code pod} goes in the ledger's current state; empty when it fits nowhere. */
  Optional<AllocationPlan> choose(SimPod pod, Ledger ledger, PlacementContext context);

  /** The context the engine decides in for this contender, e.g. when rebalancing. */
  default PlacementContext context(PlacementContext context) {
    return context;
  }

  /** Told after a choice was applied, for policies that remember placements. */
  default void placed(SimPod pod, AllocationPlan plan) {}
}
