package org.vnpu.scheduler;

import java.time.Duration;

/**
 * How the scheduler decides and how long its promises hold.
 *
 * @param heartbeatTolerance a node whose device plugin has been silent longer is not schedulable
 * @param lockTimeout how long a node lock taken for a pod holds (the device plugin releases it
 *     after the pod's last container; an expired lock may be taken over)
 * @param reservationTimeout how long a reservation waits for its pod to be bound before it is
 *     released
 */
public record SchedulerSettings(
    Duration heartbeatTolerance, Duration lockTimeout, Duration reservationTimeout) {

  /** Heartbeat 2 min (the device plugin writes every 30 s), lock 2 min, reservation 1 min. */
  public static SchedulerSettings defaults() {
    return new SchedulerSettings(
        Duration.ofMinutes(2), Duration.ofMinutes(2), Duration.ofMinutes(1));
  }
}
