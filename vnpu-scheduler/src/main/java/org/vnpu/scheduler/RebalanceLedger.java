package org.vnpu.scheduler;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import org.vnpu.core.engine.RebalancePlanner;
import org.vnpu.core.engine.Watermarks;
import org.vnpu.core.request.PodManifest;

/**
 * What the {@link RebalanceController} asks of the scheduler's state: plans over its ledger, the
 * holds that reserve before it evicts, and its counters. The {@link Scheduler}'s is the one the
 * leader acts on; {@link SchedulerReader#rebalancePreview} plans only, for {@code vnpu rebalance}'s
 * preview, with no signing key.
 */
public interface RebalanceLedger {

  /** Whether the pod validly asks for vNPUs. */
  boolean requestsVnpus(PodManifest pod);

  /**
   * The fewest moves of {@code candidates}, at most {@code maxMoves}, after which {@code pending}
   * fits; empty when it fits already or no plan works.
   */
  Optional<RebalancePlanner.Plan> rebalancePlan(
      PodManifest pending, Collection<PodManifest> candidates, int movableBelow, int maxMoves)
      throws SchedulingException;

  /** Offline pods to move off nodes above the high mark to nodes below the low one. */
  Optional<RebalancePlanner.Plan> coolingPlan(
      Collection<PodManifest> candidates, Watermarks marks, int maxMoves);

  /** Allocated AI Core per node, in % of its chips. */
  Map<String, Double> allocatedCompute();

  /**
   * Reserve before evict: holds the places of the plan's replacements and of {@code pending};
   * false, holding nothing, when the ledger changed since the plan was made.
   */
  boolean holdRebalance(PodManifest pending, RebalancePlanner.Plan plan, Duration holdFor);

  /** The moves of {@code notMoved} will not happen: their holds go. */
  void cancelRebalance(PodManifest pending, Collection<String> notMoved);

  /** Counts what the rebalancer did, for the metrics. */
  void countRebalance(String what, String label);
}
