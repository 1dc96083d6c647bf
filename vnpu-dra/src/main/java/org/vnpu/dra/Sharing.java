package org.vnpu.dra;

import org.vnpu.api.WireValue;

/**
 * How chips are offered to the Kubernetes scheduler; docs/dra.md says which clusters allow each.
 */
public enum Sharing implements WireValue {
  /**
   * Each chip is either one whole device or a fixed number of equal slices ({@code
   * --slices-per-chip}); works with the default feature gates of Kubernetes 1.34.
   */
  PROFILES("profiles"),
  /**
   * Each chip is one whole device and equal slices, all drawing on the chip's shared counters (AI
   * Core percent, memory), so the scheduler never gives out more than the chip has; needs {@code
   * DRAPartitionableDevices} (alpha in 1.34/1.35, beta in 1.36).
   */
  PARTITIONABLE("partitionable"),
  /**
   * Each chip is one device that many claims share, each asking for its AI Core percent and memory
   * as capacity; needs {@code DRAConsumableCapacity} (alpha in 1.34/1.35).
   */
  CONSUMABLE("consumable");

  private final String wireName;

  Sharing(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }
}
