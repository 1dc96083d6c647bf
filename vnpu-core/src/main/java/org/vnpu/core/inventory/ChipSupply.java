package org.vnpu.core.inventory;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * How many chips of each type a cluster has: what the fragmentation measure weighs the mix's demand
 * for a type against, to find the types the pods that accept only them need.
 *
 * @param chipsByType healthy chips per chip type name
 */
public record ChipSupply(Map<String, Long> chipsByType) {

  /** A cluster of unknown chips: no type is scarcer than another. */
  public static final ChipSupply UNKNOWN = new ChipSupply(Map.of());

  public ChipSupply {
    chipsByType = Map.copyOf(chipsByType);
  }

  /** The healthy chips of {@code nodes}, by type. */
  public static ChipSupply of(Collection<NodeInventory> nodes) {
    Map<String, Long> chips = new TreeMap<>();
    for (NodeInventory node : nodes) {
      for (Chip chip : node.chips()) {
        if (chip.healthy()) {
          chips.merge(chip.model().name(), 1L, Long::sum);
        }
      }
    }
    return new ChipSupply(chips);
  }

  /** All healthy chips. */
  public long total() {
    return chipsByType.values().stream().mapToLong(Long::longValue).sum();
  }
}
