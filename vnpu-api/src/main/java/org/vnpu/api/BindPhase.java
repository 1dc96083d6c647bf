package org.vnpu.api;

import com.fasterxml.jackson.annotation.JsonValue;

/** Where a pod is in the hand-out of its vNPUs. */
public enum BindPhase implements WireValue {
  /** The scheduler bound the pod; the device plugin has not finished Allocate. */
  ALLOCATING("allocating"),
  /** Every container received its vNPUs. */
  SUCCESS("success"),
  /** The device plugin refused the allocation. */
  FAILED("failed");

  private final String wireName;

  BindPhase(String wireName) {
    this.wireName = wireName;
  }

  @Override
  @JsonValue
  public String wireName() {
    return wireName;
  }
}
