package org.vnpu.core.chip;

import com.fasterxml.jackson.annotation.JsonValue;

/** How the chips of one server are linked; decides which chips a multi-chip job prefers. */
public enum InterconnectKind {
  /** HCCS ring, e.g. two rings of 4 chips on an Atlas 800 training server with 910A. */
  HCCS_RING("hccs-ring"),
  /** Every chip linked to every other, e.g. the 8 chips of an Atlas 800 A2 with 910B. */
  FULL_MESH("full-mesh"),
  /** The two dies of one card, e.g. Atlas A3 (910_93). */
  DIE_PAIR("die-pair"),
  /** Chips on one PCIe card without a chip-to-chip fabric, e.g. Atlas 300I Duo (310P3). */
  CARD("card"),
  /** No known fast link between chips. */
  NONE("none");

  private final String wireName;

  InterconnectKind(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }
}
