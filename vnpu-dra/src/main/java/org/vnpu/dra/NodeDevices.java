package org.vnpu.dra;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.vnpu.api.payload.RegisteredChip;

/**
 * What one node offers through DRA, decided from its chips alone: the devices by name, each a whole
 * chip, a fixed slice of one, or (consumable capacity) a chip many claims share. Unhealthy chips
 * are left out, so the scheduler stops giving them out.
 */
public record NodeDevices(Sharing sharing, List<NpuDevice> devices) {

  /** How many equal slices a chip may be offered as. */
  public static final Set<Integer> SLICES = Set.of(1, 2, 4, 8);

  /**
   * One device.
   *
   * @param name the device's name in the ResourceSlice, a DNS label
   * @param chip the chip it is (part of)
   * @param wholeCard the whole chip, exclusively
   * @param cores AI Core percent it stands for (whole: 100; consumable: the chip's 100 to share)
   * @param memoryMiB device memory it stands for
   * @param consumable many claims share it, each with the capacity it asked for
   * @param slot which of the chip's slices it is, from 1; 0 for the whole chip
   */
  public record NpuDevice(
      String name,
      RegisteredChip chip,
      boolean wholeCard,
      int cores,
      long memoryMiB,
      boolean consumable,
      int slot) {}

  public NodeDevices {
    devices = List.copyOf(devices);
  }

  /**
   * @param slicesPerChip 1, 2, 4 or 8: the slices of {@link Sharing#PROFILES} and {@link
   *     Sharing#PARTITIONABLE} (profiles with 1 offers whole chips only)
   * @param order the devices' order in the ResourceSlices
   */
  public static NodeDevices of(
      List<RegisteredChip> chips, Sharing sharing, int slicesPerChip, DeviceOrder order) {
    if (!SLICES.contains(slicesPerChip)) {
      throw new IllegalArgumentException(
          "slices per chip " + slicesPerChip + ": must be one of 1, 2, 4, 8");
    }
    List<NpuDevice> devices = new ArrayList<>();
    for (RegisteredChip chip : chips) {
      if (!chip.healthy()) {
        continue;
      }
      String whole = "npu-" + chip.index();
      switch (sharing) {
        case PROFILES -> {
          if (slicesPerChip == 1) {
            devices.add(new NpuDevice(whole, chip, true, 100, chip.memoryMiB(), false, 0));
          } else {
            addSlices(devices, chip, slicesPerChip);
          }
        }
        case PARTITIONABLE -> {
          devices.add(new NpuDevice(whole, chip, true, 100, chip.memoryMiB(), false, 0));
          if (slicesPerChip > 1) {
            addSlices(devices, chip, slicesPerChip);
          }
        }
        case CONSUMABLE ->
            devices.add(new NpuDevice(whole, chip, false, 100, chip.memoryMiB(), true, 0));
      }
    }
    return new NodeDevices(sharing, order.sort(devices));
  }

  private static void addSlices(List<NpuDevice> devices, RegisteredChip chip, int slices) {
    for (int k = 0; k < slices; k++) {
      devices.add(
          new NpuDevice(
              "npu-" + chip.index() + "-" + (k + 1) + "of" + slices,
              chip,
              false,
              100 / slices,
              chip.memoryMiB() / slices,
              false,
              k + 1));
    }
  }

  /** The device called {@code name}, if this node offers it now. */
  public Optional<NpuDevice> find(String name) {
    return devices.stream().filter(device -> device.name().equals(name)).findFirst();
  }

  /** The chips the devices are on, once each, in index order. */
  public List<RegisteredChip> chips() {
    return devices.stream()
        .map(NpuDevice::chip)
        .distinct()
        .sorted(Comparator.comparingInt(RegisteredChip::index))
        .toList();
  }
}
