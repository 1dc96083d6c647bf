package org.vnpu.driver;

import java.util.List;

/**
 * A chip's activity as its driver measures it.
 *
 * @param aiCorePercent AI Core utilisation over the driver's last sampling period, 0..100
 * @param memoryUsedMiB device memory in use, including what the driver itself reserves
 * @param processes host processes holding device memory on the chip
 * @param temperatureCelsius the chip's temperature; null when the driver does not report it
 * @param powerWatts the chip's (card's) power draw; null when the driver does not report it
 */
public record ChipUsage(
    int aiCorePercent,
    long memoryUsedMiB,
    List<ProcessMemory> processes,
    Double temperatureCelsius,
    Double powerWatts) {

  public ChipUsage {
    processes = List.copyOf(processes);
  }

  /**
   * Device memory held by one host process.
   *
   * @param pid host PID
   * @param bytes device memory in bytes
   */
  public record ProcessMemory(int pid, long bytes) {}
}
