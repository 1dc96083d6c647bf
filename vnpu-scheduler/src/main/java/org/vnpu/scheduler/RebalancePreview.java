package org.vnpu.scheduler;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import org.vnpu.core.engine.RebalancePlanner;
import org.vnpu.core.engine.Watermarks;
import org.vnpu.core.request.PodManifest;

/**
 * The rebalancer's plans over a {@link SchedulerReader}'s state, for a preview that runs in dry-run
 * only: it plans as the scheduler would, and holds nothing, as a dry run never holds.
 */
final class RebalancePreview implements RebalanceLedger {

  private final SchedulerReader reader;
  private final RebalancePlans plans;
  private final SchedulerCounters counters = new SchedulerCounters();

  RebalancePreview(SchedulerReader reader, SchedulerState state) {
    this.reader = reader;
    this.plans = new RebalancePlans(state);
  }

  @Override
  public boolean requestsVnpus(PodManifest pod) {
    return reader.requestsVnpus(pod);
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
    throw new UnsupportedOperationException("a preview runs in dry-run and holds nothing");
  }

  @Override
  public void cancelRebalance(PodManifest pending, Collection<String> notMoved) {
    throw new UnsupportedOperationException("a preview runs in dry-run and holds nothing");
  }

  @Override
  public void countRebalance(String what, String label) {
    counters.rebalance(what, label);
  }
}
