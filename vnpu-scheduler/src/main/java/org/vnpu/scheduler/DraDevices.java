package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.DraDeviceAttributes;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.VnpuAssignment;

/**
 * How the scheduler reads the devices of vNPU ResourceSlices: the chips they are on (attributes
 * {@code index}, {@code type}, {@code dieID}, {@code numaNode}, {@code interconnectGroup}, {@code
 * aiCores}; memory: the whole chip's device, else the sum of its slices) and what an allocated
 * device charges its chip.
 */
final class DraDevices {

  /** What a share through DRA is charged as: the slice's quota is the container's fixed share. */
  static final AiCorePolicy CHARGED_POLICY = AiCorePolicy.FIXED_SHARE;

  private DraDevices() {}

  /** The chips the devices are on, by their {@code index} attribute. */
  static List<RegisteredChip> chips(String node, Collection<Device> devices) {
    Map<Long, List<Device>> byChip = new TreeMap<>();
    for (Device device : devices) {
      DeviceAttribute index = attributes(device).get(DraDeviceAttributes.INDEX);
      if (index != null && index.getInt() != null) {
        byChip.computeIfAbsent(index.getInt(), i -> new ArrayList<>()).add(device);
      }
    }
    List<RegisteredChip> chips = new ArrayList<>();
    for (Map.Entry<Long, List<Device>> chip : byChip.entrySet()) {
      Device any = chip.getValue().get(0);
      long memory =
          chip.getValue().stream()
              .filter(device -> wholeCard(device) || isShared(device))
              .mapToLong(device -> mebibytes(capacity(device, DraDeviceAttributes.MEMORY_CAPACITY)))
              .max()
              .orElse(
                  chip.getValue().stream()
                      .mapToLong(
                          device ->
                              mebibytes(capacity(device, DraDeviceAttributes.MEMORY_CAPACITY)))
                      .sum());
      chips.add(
          new RegisteredChip(
              Math.toIntExact(chip.getKey()),
              text(any, DraDeviceAttributes.DIE_ID, node + "-npu-" + chip.getKey()),
              text(any, DraDeviceAttributes.TYPE, ""),
              memory,
              Math.toIntExact(number(any, DraDeviceAttributes.AI_CORES)),
              0,
              true,
              Math.toIntExact(number(any, DraDeviceAttributes.NUMA_NODE)),
              text(any, DraDeviceAttributes.INTERCONNECT_GROUP, "")));
    }
    return chips;
  }

  /** The chip of {@code chips} that {@code device} is on. */
  static RegisteredChip chipOf(List<RegisteredChip> chips, Device device) {
    long index = attributes(device).get(DraDeviceAttributes.INDEX).getInt();
    return chips.stream().filter(chip -> chip.index() == index).findFirst().orElseThrow();
  }

  /** Whether the device is a whole chip. */
  static boolean wholeCard(Device device) {
    DeviceAttribute whole = attributes(device).get(DraDeviceAttributes.WHOLE_CARD);
    return whole != null && Boolean.TRUE.equals(whole.getBool());
  }

  /** Whether claims may share the device, each consuming some of its capacity. */
  static boolean isShared(Device device) {
    return Boolean.TRUE.equals(device.getAllowMultipleAllocations());
  }

  private static Map<String, DeviceAttribute> attributes(Device device) {
    return Objects.requireNonNullElse(device.getAttributes(), Map.of());
  }

  private static String text(Device device, String name, String otherwise) {
    DeviceAttribute attribute = attributes(device).get(name);
    return attribute == null || attribute.getString() == null || attribute.getString().isEmpty()
        ? otherwise
        : attribute.getString();
  }

  private static long number(Device device, String name) {
    DeviceAttribute attribute = attributes(device).get(name);
    return attribute == null || attribute.getInt() == null ? 0 : attribute.getInt();
  }

  /** The device's capacity {@code name}, 0 where it has none. */
  static BigDecimal capacity(Device device, String name) {
    DeviceCapacity capacity =
        Objects.requireNonNullElse(device.getCapacity(), Map.<String, DeviceCapacity>of())
            .get(name);
    return capacity == null ? BigDecimal.ZERO : Quantity.getAmountInBytes(capacity.getValue());
  }

  /** Bytes in MiB, rounded up. */
  static long mebibytes(BigDecimal bytes) {
    return bytes.divide(BigDecimal.valueOf(1 << 20), 0, RoundingMode.CEILING).longValueExact();
  }

  /**
   * What an allocated device charges its chip: a whole chip whole, a shared device the capacity the
   * claim consumed (its capacity where the result names none), another device its capacity.
   */
  static VnpuAssignment charged(
      RegisteredChip chip, Device device, Map<String, Quantity> consumed) {
    boolean whole = wholeCard(device);
    if (whole) {
      return new VnpuAssignment(
          chip.index(),
          chip.dieId(),
          chip.chipType(),
          chip.memoryMiB(),
          100,
          SplitMode.SOFT,
          true,
          null,
          null);
    }
    long memory = mebibytes(consumedOr(consumed, device, DraDeviceAttributes.MEMORY_CAPACITY));
    int cores =
        consumedOr(consumed, device, DraDeviceAttributes.AI_CORE_CAPACITY)
            .setScale(0, RoundingMode.CEILING)
            .intValue();
    return new VnpuAssignment(
        chip.index(),
        chip.dieId(),
        chip.chipType(),
        memory,
        cores,
        SplitMode.SOFT,
        false,
        CHARGED_POLICY,
        null);
  }

  private static BigDecimal consumedOr(Map<String, Quantity> consumed, Device device, String name) {
    return consumed != null && consumed.containsKey(name)
        ? Quantity.getAmountInBytes(consumed.get(name))
        : capacity(device, name);
  }
}
