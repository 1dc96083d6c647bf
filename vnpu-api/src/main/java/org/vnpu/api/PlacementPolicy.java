package org.vnpu.api;

import com.fasterxml.jackson.annotation.JsonValue;

/** How the scheduler chooses among candidate nodes, or among the chips of one node. */
public enum PlacementPolicy implements WireValue {
  /** Fill the fullest candidate first, keeping others free for large requests. */
  BINPACK("binpack"),
  /** Use the emptiest candidate first, spreading load and failure domains. */
  SPREAD("spread"),
  /**
   * Choose the placement that least increases the expected fragmentation against the recent mix of
   * request shapes (after the FGD paper, USENIX ATC '23); ties go to the fuller candidate.
   */
  FRAGMENTATION_AWARE("fragmentation-aware");

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
