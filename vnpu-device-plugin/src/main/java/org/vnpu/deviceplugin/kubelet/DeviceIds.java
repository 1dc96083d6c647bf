package org.vnpu.deviceplugin.kubelet;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.ToIntFunction;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.kubelet.deviceplugin.v1beta1.Device;
import org.vnpu.kubelet.deviceplugin.v1beta1.NUMANode;
import org.vnpu.kubelet.deviceplugin.v1beta1.TopologyInfo;

/**
 * The device IDs the kubelet counts a resource with: {@code units(chip)} per chip, {@code
 * <dieID>-<tag><unit>}. They are tokens, not placements: which chip a container gets is the
 * scheduler's signed allocation, whatever IDs the kubelet picked. A die ID too long for the
 * kubelet's 63-character limit is replaced by a hash of it. An unhealthy chip's devices are marked
 * so, which takes them out of the node's allocatable.
 */
public final class DeviceIds {

  /** The kubelet's limit on a device ID's length. */
  public static final int MAX_LENGTH = 63;

  /** Health values of the device plugin API. */
  public static final String HEALTHY = "Healthy";

  public static final String UNHEALTHY = "Unhealthy";

  private DeviceIds() {}

  /**
   * {@code units} devices of each chip, tagged {@code tag}; with the chip's NUMA node when {@code
   * topology} (only for devices that stand for the chip itself: a token with a NUMA node makes the
   * kubelet's topology manager align it, which means nothing for a count).
   */
  public static List<Device> devices(
      List<RegisteredChip> chips,
      ToIntFunction<RegisteredChip> units,
      String tag,
      boolean topology) {
    List<Device> devices = new ArrayList<>();
    for (RegisteredChip chip : chips) {
      for (int unit = 0; unit < units.applyAsInt(chip); unit++) {
        Device.Builder device =
            Device.newBuilder()
                .setID(id(chip.dieId(), tag + unit))
                .setHealth(chip.healthy() ? HEALTHY : UNHEALTHY);
        if (topology && chip.numaNode() >= 0) {
          device.setTopology(
              TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(chip.numaNode())));
        }
        devices.add(device.build());
      }
    }
    return devices;
  }

  /** The ID of {@code unit} on the chip {@code dieId}. */
  static String id(String dieId, String unit) {
    String id = dieId + "-" + unit;
    return id.length() <= MAX_LENGTH ? id : hash(dieId) + "-" + unit;
  }

  private static String hash(String dieId) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(dieId.getBytes(StandardCharsets.UTF_8));
      return "h" + HexFormat.of().formatHex(digest, 0, 20);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }
}
