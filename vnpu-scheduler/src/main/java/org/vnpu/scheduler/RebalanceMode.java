package org.vnpu.scheduler;

import org.vnpu.api.WireValue;

/** What the controller does with a plan. */
public enum RebalanceMode implements WireValue {
  /** Nothing: no plans are made. */
  OFF("off"),
  /** Plans are logged, counted and put in Events; nothing is evicted. */
  DRY_RUN("dry-run"),
  /** Plans are carried out. */
  EXECUTE("execute");

  private final String wireName;

  RebalanceMode(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }
}
