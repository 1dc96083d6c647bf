package org.vnpu.api;

import com.fasterxml.jackson.annotation.JsonValue;

/** How the scheduler chooses among candidate nodes, or among the chips of one node. */
public enum PlacementPolicy implements WireValue {
  /** Fill the fullest candidate first, keeping others free for large requests. */
  BINPACK("binpack"),
  /** Use the emptiest candidate first, spreading load and failure domains. */
  SPREAD("spread");

  private final String wireName;

  PlacementPolicy(String wireName) {
    this.wireName = wireName;
  }

  @Override
  @JsonValue
  public String wireName() {
    return wireName;
  }
}
