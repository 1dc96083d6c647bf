package org.vnpu.scheduler;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import org.vnpu.core.engine.RebalancePlanner;
import org.vnpu.core.engine.Watermarks;
import org.vnpu.core.request.PodManifest;

/**
 * The {@link RebalanceLedger} over the scheduler's state: plans and holds by {@link
 * RebalancePlans}, counts in {@link SchedulerCounters}. The {@link Scheduler}'s leader acts on one;
 * a {@link SchedulerReader}'s preview plans with one in dry-run, which never holds.
 */
final class StateRebalancing implements RebalanceLedger {

  private final SchedulerState state;
  private final RebalancePlans plans;
  private final SchedulerCounters counters;

  StateRebalancing(SchedulerState state, SchedulerCounters counters) {
    this.state = state;
    this.plans = new RebalancePlans(state);
    this.counters = counters;
  }

  @Override
  public boolean requestsVnpus(PodManifest pod) {
    return state.requestsVnpus(pod);
  }

  @Override
  public Optional<RebalancePlanner.Plan> rebalancePlan(
      PodManifest pending, Collection<PodManifest> candidates, int movableBelow, int maxMoves)
      throws SchedulingException {
    return plans.forPending(pending, candidates, movableBelow, maxMoves);
  }

  @Override
  public Optional<RebalancePlanner.Plan> coolingPlan(
      Collection<PodManifest> candidates, Watermarks marks, int maxMoves) {
    return plans.cooling(candidates, marks, maxMoves);
  }

  @Override
  public Map<String, Double> allocatedCompute() {
    return plans.allocatedCompute();
  }

  @Override
  public boolean holdRebalance(PodManifest pending, RebalancePlanner.Plan plan, Duration holdFor) {
    return plans.hold(pending, plan, holdFor);
  }

  @Override
  public void cancelRebalance(PodManifest pending, Collection<String> notMoved) {
    plans.cancel(pending, notMoved);
  }

  @Override
  public void countRebalance(String what, String label) {
    counters.rebalance(what, label);
  }
}
