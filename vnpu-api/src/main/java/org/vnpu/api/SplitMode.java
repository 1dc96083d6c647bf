package org.vnpu.api;

import com.fasterxml.jackson.annotation.JsonValue;

/** How a node's chips are shared. */
public enum SplitMode implements WireValue {
  /** Time-sliced AI Core and a device-memory quota, enforced by the libvnpu shim. */
  SOFT("soft"),
  /** Ascend hardware vNPU templates created by Ascend Docker Runtime. */
  HARD("hard");

  private final String wireName;

  SplitMode(String wireName) {
    this.wireName = wireName;
  }

  @Override
  @JsonValue
  public String wireName() {
    return wireName;
  }
}
