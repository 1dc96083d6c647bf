package org.vnpu.sim.experiment;

import java.util.Optional;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.core.engine.Decision;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.policy.Policies;
import org.vnpu.sim.SimPod;

/** The product: the placement engine with one built-in policy at node and chip level. */
final class EngineContender implements Contender {

  private final Policies.Policy policy;

  EngineContender(PlacementPolicy name) {
    this.policy = Policies.of(name);
  }

  @Override
  public Optional<AllocationPlan> choose(SimPod pod, Ledger ledger, PlacementContext context) {
    Decision decision =
        PlacementEngine.place(pod.request(), pod.host(), ledger.table(), context(context));
    return decision instanceof Decision.Placed placed
        ? Optional.of(placed.plan())
        : Optional.empty();
  }

  /** {@code context} with this policy for every pod, whatever the pod asks. */
  @Override
  public PlacementContext context(PlacementContext context) {
    return context.withScorers(Policies.fixed(policy.node(), policy.chip()));
  }
}
