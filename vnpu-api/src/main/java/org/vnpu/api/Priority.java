package org.vnpu.api;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * A pod's priority on a shared chip (docs/colocation.md). Online work keeps the chip whenever it
 * wants it; offline work runs in the time online work leaves idle, gives the chip up at its next
 * kernel launch when online work wants it, and is what the scheduler evicts to make room for an
 * online pod.
 */
public enum Priority implements WireValue {
  /** Latency-sensitive work, such as inference services: never waits for offline work's slices. */
  ONLINE("online"),
  /** Batch work that fills idle time: preempted on the chip and evicted across the cluster. */
  OFFLINE("offline");

  /**
   * The default {@code --online-priority-threshold}: pods whose {@code spec.priority} is below it
   * are offline. Kubernetes gives pods without a PriorityClass priority 0, so by default every pod
   * is online and only pods of a negative PriorityClass (or annotated offline) are offline.
   */
  public static final int DEFAULT_ONLINE_THRESHOLD = 0;

  private final String wireName;

  Priority(String wireName) {
    this.wireName = wireName;
  }

  @Override
  @JsonValue
  public String wireName() {
    return wireName;
  }
}
