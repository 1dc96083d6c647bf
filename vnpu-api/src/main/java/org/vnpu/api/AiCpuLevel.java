package org.vnpu.api;

import com.fasterxml.jackson.annotation.JsonValue;

/** Which hard-mode template family a request prefers. */
public enum AiCpuLevel implements WireValue {
  /** Templates with fewer AI CPUs, so that more instances fit on a chip. */
  LOW("low"),
  /** Templates with as many AI CPUs as AI Cores. */
  HIGH("high");

  private final String wireName;

  AiCpuLevel(String wireName) {
    this.wireName = wireName;
  }

  @Override
  @JsonValue
  public String wireName() {
    return wireName;
  }
}
