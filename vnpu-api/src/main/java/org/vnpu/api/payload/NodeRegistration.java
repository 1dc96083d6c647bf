package org.vnpu.api.payload;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.vnpu.api.SplitMode;

/**
 * A node's NPU inventory, published by the device plugin under {@code
 * huawei.com/node-vnpu-register}.
 *
 * @param splitMode how the node's chips are shared
 * @param maxSharesPerChip how many vNPUs one chip may hold at most (kubelet sees this many device
 *     IDs per chip)
 * @param chips the node's chips; indexes and die IDs are unique
 */
public record NodeRegistration(
    SplitMode splitMode, int maxSharesPerChip, List<RegisteredChip> chips) {

  /** The runtime shim's limit of vNPU instances on one physical NPU. */
  public static final int MAX_SHARES_PER_CHIP = 63;

  public NodeRegistration {
    Checks.present(splitMode, "splitMode");
    Checks.range(maxSharesPerChip, 1, MAX_SHARES_PER_CHIP, "maxSharesPerChip");
    chips = Checks.list(chips, "chips");
    Set<Integer> indexes = new HashSet<>();
    Set<String> dieIds = new HashSet<>();
    for (RegisteredChip chip : chips) {
      if (!indexes.add(chip.index())) {
        throw new IllegalArgumentException("chips: index " + chip.index() + " appears twice");
      }
      if (!dieIds.add(chip.dieId())) {
        throw new IllegalArgumentException("chips: dieId " + chip.dieId() + " appears twice");
      }
    }
  }
}
