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
 * holds that reserve before it evicts, and its counters ({@link StateRebalancing}). The {@link
 * Scheduler#rebalancing}'s is the one the leader acts on; {@link SchedulerReader#rebalancePreview}
 * plans over a reader's state, for {@code vnpu rebalance}'s preview, with no signing key.
 */
public interface RebalanceLedger {

  /** Whether the pod validly asks for vNPUs. */
  boolean requestsVnpus(PodManifest pod);

  /**
   * The plan the ledger allows for {@code pending}: the fewest moves of {@code candidates}, at most
   * {@code maxMoves}, after which it fits ({@link RebalancePlanner}); empty when it fits already or
   * no plan works. Of the candidates only pods whose signed allocation the ledger holds count, and
   * only those whose allocation is offline or whose priority is below {@code movableBelow}.
   */
  Optional<RebalancePlanner.Plan> rebalancePlan(
      PodManifest pending, Collection<PodManifest> candidates, int movableBelow, int maxMoves)
      throws SchedulingException;

  /**
   * Offline pods among {@code candidates} to move off nodes above {@code marks.high()} to nodes
   * below {@code marks.low()}, at most {@code maxMoves}.
   */
  Optional<RebalancePlanner.Plan> coolingPlan(
      Collection<PodManifest> candidates, Watermarks marks, int maxMoves);

  /** Allocated AI Core per node, in % of its chips ({@link RebalancePlanner#allocatedCompute}). */
  Map<String, Double> allocatedCompute();

  /**
   * Reserve before evict: charges the place of every moved pod's replacement, keyed by its owner
   * and shape ({@link ReplacementHolds}), and holds {@code pending}'s place until the moved pods
   * are gone ({@link PreemptionHolds}). Returns false, holding nothing, when the ledger changed
   * since the plan was made.
   */
  boolean holdRebalance(PodManifest pending, RebalancePlanner.Plan plan, Duration holdFor);

  /**
   * The moves of {@code notMoved} will not happen (an eviction was refused): their replacements'
   * places go, and so does the place held for {@code pending}.
   */
  void cancelRebalance(PodManifest pending, Collection<String> notMoved);

  /** Counts what the rebalancer did, for the metrics. */
  void countRebalance(String what, String label);
}
