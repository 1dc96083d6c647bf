package org.vnpu.scheduler;

import java.time.Duration;
import org.vnpu.core.engine.Watermarks;

/**
 * How the rebalancer plans and how much it may disturb.
 *
 * @param mode off, dry-run or execute
 * @param interval time between passes; the eviction limits count per interval
 * @param pendingFor a pod pending shorter than this is left to the schedulers
 * @param movableBelow pods whose {@code spec.priority} is below this may move (offline pods may
 *     always)
 * @param movesPerPlan moves one plan may make
 * @param evictionsPerInterval evictions per interval, over all plans
 * @param evictionsPerNode evictions per interval from one node
 * @param evictionsPerOwner evictions per interval of one owner's pods
 * @param cooldown an owner whose pod moved is left alone this long
 * @param marks when a node runs hot and which nodes may take its offline pods
 * @param hotFor a node must stay above the high mark this long before pods move off it
 * @param holdFor how long held places wait for the evicted pods to go and the pods to come
 */
public record RebalanceSettings(
    RebalanceMode mode,
    Duration interval,
    Duration pendingFor,
    int movableBelow,
    int movesPerPlan,
    int evictionsPerInterval,
    int evictionsPerNode,
    int evictionsPerOwner,
    Duration cooldown,
    Watermarks marks,
    Duration hotFor,
    Duration holdFor) {

  /** Dry-run every minute, 3 moves per plan, 6 evictions per interval (2 per node, 1 per owner). */
  public static RebalanceSettings defaults() {
    return new RebalanceSettings(
        RebalanceMode.DRY_RUN,
        Duration.ofMinutes(1),
        Duration.ofMinutes(2),
        0,
        3,
        6,
        2,
        1,
        Duration.ofMinutes(30),
        new Watermarks(85, 50),
        Duration.ofMinutes(10),
        Duration.ofMinutes(5));
  }

  /** These settings in another mode. */
  public RebalanceSettings withMode(RebalanceMode other) {
    return new RebalanceSettings(
        other,
        interval,
        pendingFor,
        movableBelow,
        movesPerPlan,
        evictionsPerInterval,
        evictionsPerNode,
        evictionsPerOwner,
        cooldown,
        marks,
        hotFor,
        holdFor);
  }
}
