package org.vnpu.api;

import com.fasterxml.jackson.annotation.JsonValue;

/** How much the runtime shim writes to stderr; each level includes the ones above it. */
public enum LogLevel implements WireValue {
  ERROR("error"),
  WARN("warn"),
  INFO("info"),
  DEBUG("debug");

  private final String wireName;

  LogLevel(String wireName) {
    this.wireName = wireName;
  }

  @Override
  @JsonValue
  public String wireName() {
    return wireName;
  }
}
