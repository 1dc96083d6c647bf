package org.vnpu.driver;

import java.util.List;
import java.util.Optional;
import org.vnpu.api.payload.RegisteredChip;

/**
 * The node's NPUs as a driver reports them. Implementations are called from one thread at a time.
 */
public interface NpuDriver {

  /** Short name for logs and {@code --driver}: {@code dcmi}, {@code npu-smi}, {@code simulated}. */
  String name();

  /**
   * The chips of this node, health included, ordered by index. Fields a driver cannot know are left
   * for the catalog: 0 AI Cores or AI CPUs, NUMA node -1, empty interconnect group.
   *
   * @throws DriverException naming the call that failed and why
   */
  List<RegisteredChip> chips();

  /**
   * What one chip is doing right now.
   *
   * @throws DriverException naming the call that failed and why
   */
  ChipUsage usage(RegisteredChip chip);

  /**
   * Whether containers may share the chip (device-share mode, which soft slicing needs); empty when
   * this driver cannot tell.
   *
   * @throws DriverException naming the call that failed and why
   */
  default Optional<Boolean> deviceShare(RegisteredChip chip) {
    return Optional.empty();
  }
}
