package org.vnpu.api;

import com.fasterxml.jackson.annotation.JsonValue;

/** How a soft-mode share uses the chip's AI Core time. */
public enum AiCorePolicy implements WireValue {
  /** Never more than its share, even on an idle chip. */
  FIXED_SHARE("fixed-share"),
  /** Its share is guaranteed and it borrows idle time. */
  ELASTIC("elastic"),
  /** Never throttled, never guaranteed; reserves no AI Core. */
  BEST_EFFORT("best-effort");

  private final String wireName;

  AiCorePolicy(String wireName) {
    this.wireName = wireName;
  }

  @Override
  @JsonValue
  public String wireName() {
    return wireName;
  }
}
