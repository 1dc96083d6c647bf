package org.vnpu.deviceplugin.kubelet;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.kubelet.deviceplugin.v1beta1.Device;
import org.vnpu.kubelet.deviceplugin.v1beta1.NUMANode;
import org.vnpu.kubelet.deviceplugin.v1beta1.TopologyInfo;

/**
 * The device IDs the kubelet counts {@code huawei.com/vnpu-number} with: one per share slot, {@code
 * <dieID>-<slot>}, {@code maxSharesPerChip} slots per chip in every split mode. They are tokens,
 * not placements: which chip a container gets is the scheduler's signed allocation, whatever IDs
 * the kubelet picked. A die ID too long for the kubelet's 63-character limit is replaced by a hash
 * of it.
 */
public final class DeviceIds {

  /** The kubelet's limit on a device ID's length. */
  public static final int MAX_LENGTH = 63;

  /** Health values of the device plugin API. */
  public static final String HEALTHY = "Healthy";

  public static final String UNHEALTHY = "Unhealthy";

  private DeviceIds() {}

  /** Every slot of every chip, unhealthy chips' slots marked so. */
  public static List<Device> devices(List<RegisteredChip> chips, int maxSharesPerChip) {
    List<Device> devices = new ArrayList<>();
    for (RegisteredChip chip : chips) {
      for (int slot = 0; slot < maxSharesPerChip; slot++) {
        Device.Builder device =
            Device.newBuilder()
                .setID(id(chip.dieId(), slot))
                .setHealth(chip.healthy() ? HEALTHY : UNHEALTHY);
        if (chip.numaNode() >= 0) {
          device.setTopology(
              TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(chip.numaNode())));
        }
        devices.add(device.build());
      }
    }
    return devices;
  }

  /** The ID of {@code slot} on the chip {@code dieId}. */
  static String id(String dieId, int slot) {
    String id = dieId + "-" + slot;
    return id.length() <= MAX_LENGTH ? id : hash(dieId) + "-" + slot;
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
