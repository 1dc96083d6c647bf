package org.vnpu.scheduler;

import java.time.Duration;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.api.Priority;
import org.vnpu.core.request.PodOptions;

/**
 * How the scheduler decides and how long its promises hold.
 *
 * @param heartbeatTolerance a node whose device plugin has been silent longer is not schedulable
 * @param lockTimeout how long a node lock taken for a pod holds (the device plugin releases it
 *     after the pod's last container; an expired lock may be taken over)
 * @param reservationTimeout how long a reservation waits for its pod to be bound before it is
 *     released
 * @param nodePolicy how nodes are chosen for a pod that names no policy
 * @param devicePolicy how chips are chosen for a pod that names no policy
 * @param onlinePriorityThreshold pods without {@code huawei.com/vnpu-priority} whose {@code
 *     spec.priority} is below it are offline
 * @param draDriver the DRA driver whose ResourceSlices and ResourceClaims the extender follows to
 *     rank nodes for pods with vNPU claims (docs/dra.md), or empty: no DRA
 */
public record SchedulerSettings(
    Duration heartbeatTolerance,
    Duration lockTimeout,
    Duration reservationTimeout,
    PlacementPolicy nodePolicy,
    PlacementPolicy devicePolicy,
    int onlinePriorityThreshold,
    String draDriver) {

  /**
   * Heartbeat 2 min (the device plugin writes every 30 s), lock 2 min, reservation 1 min; the
   * policies of {@link PodOptions#defaults()}; pods of negative priority are offline; no DRA.
   */
  public static SchedulerSettings defaults() {
    PodOptions pods = PodOptions.defaults();
    return new SchedulerSettings(
        Duration.ofMinutes(2),
        Duration.ofMinutes(2),
        Duration.ofMinutes(1),
        pods.nodePolicy(),
        pods.devicePolicy(),
        Priority.DEFAULT_ONLINE_THRESHOLD,
        "");
  }

  /** These settings, following the DRA driver {@code driver}'s slices and claims. */
  public SchedulerSettings withDraDriver(String driver) {
    return new SchedulerSettings(
        heartbeatTolerance,
        lockTimeout,
        reservationTimeout,
        nodePolicy,
        devicePolicy,
        onlinePriorityThreshold,
        driver);
  }

  /** Whether the extender follows a DRA driver. */
  public boolean followsDra() {
    return !draDriver.isEmpty();
  }

  /** The options of a pod without vNPU annotations, with these policies. */
  public PodOptions podDefaults() {
    return PodOptions.defaults().withPolicies(nodePolicy, devicePolicy);
  }
}
