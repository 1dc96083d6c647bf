package org.vnpu.deviceplugin.kubelet;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Function;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.kubelet.deviceplugin.v1beta1.Device;

/**
 * One extended resource the plugin advertises to the kubelet, on a socket of its own (the kubelet
 * takes one resource name per registration). {@code huawei.com/vnpu-number} hands out the
 * allocation; the others only let the kubelet, kube-scheduler and Volcano count what pods ask for
 * against what the node has (ADR 0009), and their Allocate hands out nothing.
 *
 * @param name the extended resource name
 * @param endpoint the socket file, inside the kubelet's device-plugin directory
 * @param devices the resource's devices on the given chips
 * @param handsOut whether Allocate hands out the pod's allocation (only {@code vnpu-number})
 */
public record KubeletResource(
    String name,
    String endpoint,
    Function<List<RegisteredChip>, List<Device>> devices,
    boolean handsOut) {

  /** The socket of {@code vnpu-number}, the one that hands out allocations. */
  public static final String NUMBER_ENDPOINT = "vnpu.sock";

  /** {@code maxSharesPerChip} share slots per chip, in every split mode. */
  public static KubeletResource number(int maxSharesPerChip) {
    return new KubeletResource(
        ResourceNames.VNPU_NUMBER,
        NUMBER_ENDPOINT,
        chips -> DeviceIds.devices(chips, chip -> maxSharesPerChip, "", true),
        true);
  }

  /** {@link ResourceNames#CORES_PER_CHIP} AI Core percent per chip. */
  public static KubeletResource cores() {
    return new KubeletResource(
        ResourceNames.VNPU_CORES,
        "vnpu-cores.sock",
        chips -> DeviceIds.devices(chips, chip -> ResourceNames.CORES_PER_CHIP, "c", false),
        false);
  }

  /** Each chip's whole GiB of device memory. */
  public static KubeletResource memory() {
    return new KubeletResource(
        ResourceNames.VNPU_MEMORY_GIB,
        "vnpu-memory.sock",
        chips -> DeviceIds.devices(chips, chip -> (int) (chip.memoryMiB() / 1024), "m", false),
        false);
  }

  /**
   * {@code maxSharesPerChip} selectors per chip of type {@code chipType}: each container on a chip
   * of the type asks for one.
   */
  public static KubeletResource type(String chipType, int maxSharesPerChip) {
    return new KubeletResource(
        ResourceNames.typeResource(chipType),
        "vnpu-type-" + chipType.replaceAll("[^A-Za-z0-9._-]", "_") + ".sock",
        chips ->
            DeviceIds.devices(
                chips, chip -> chip.chipType().equals(chipType) ? maxSharesPerChip : 0, "t", false),
        false);
  }

  /** Every resource a node with {@code chips} advertises: one per chip type present. */
  public static List<KubeletResource> forChips(List<RegisteredChip> chips, int maxSharesPerChip) {
    List<KubeletResource> resources =
        new ArrayList<>(List.of(number(maxSharesPerChip), cores(), memory()));
    new TreeSet<>(chips.stream().map(RegisteredChip::chipType).toList())
        .forEach(chipType -> resources.add(type(chipType, maxSharesPerChip)));
    return resources;
  }
}
