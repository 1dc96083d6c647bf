package org.vnpu.core.chip;

/**
 * The interconnect of the servers a chip type is built into.
 *
 * @param kind how the chips of a group are linked
 * @param groupSize how many consecutive chip indexes form one group
 */
public record Interconnect(InterconnectKind kind, int groupSize) {

  public Interconnect {
    if (kind == null) {
      throw new IllegalArgumentException("interconnect kind must be present");
    }
    if (groupSize < 1) {
      throw new IllegalArgumentException("interconnect groupSize must be ≥ 1, found " + groupSize);
    }
  }

  /** The group name of the chip with logic index {@code index}, e.g. {@code hccs-ring-1}. */
  public String groupOf(int index) {
    return kind.wireName() + "-" + index / groupSize;
  }
}
