package org.vnpu.deviceplugin.kubelet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.vnpu.kubelet.UnixSockets;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.vnpu.kubelet.deviceplugin.v1beta1.Empty;

/**
 * Makes sure nobody else hands out this node's chips before the plugin registers: neither another
 * vNPU device plugin (two node groups selecting one node would share our sockets) nor Ascend's own
 * device plugin (both would give the same chips to different containers).
 */
public final class ChipOwnership {

  /** Resources Ascend's device plugin registers ({@code huawei.com/Ascend910}, {@code npu}...). */
  private static final Pattern ASCEND_RESOURCE =
      Pattern.compile("huawei\\.com/(Ascend\\d.*|npu(-.*)?)");

  /** The kubelet device manager's checkpoint, beside its socket. */
  static final String KUBELET_CHECKPOINT = "kubelet_internal_checkpoint";

  private ChipOwnership() {}

  /**
   * Checks {@code directory}, the kubelet's device-plugin directory.
   *
   * @throws ChipsManagedElsewhereException naming the other manager and what to do
   */
  public static void check(Path directory) {
    Path socket = directory.resolve(KubeletResource.NUMBER_ENDPOINT);
    if (Files.exists(socket) && answers(socket)) {
      throw new ChipsManagedElsewhereException(
          "another vNPU device plugin already serves "
              + socket
              + " on this node: two node groups (chart value devicePlugin.nodeGroups) select it;"
              + " give the groups node selectors that no node matches twice");
    }
    List<String> ascend = ascendResources(directory.resolve(KUBELET_CHECKPOINT));
    if (!ascend.isEmpty()) {
      throw new ChipsManagedElsewhereException(
          "Ascend's device plugin has registered "
              + String.join(", ", ascend)
              + " with this node's kubelet ("
              + directory.resolve(KUBELET_CHECKPOINT)
              + "): it and vNPU would give the same chips to different containers; remove it from"
              + " this node, or the huawei.com/vnpu=ready label");
    }
  }

  /** Whether a device plugin answers on {@code socket} (a stale file from a restart does not). */
  private static boolean answers(Path socket) {
    ManagedChannel channel = UnixSockets.dial(socket);
    try {
      DevicePluginGrpc.newBlockingStub(channel)
          .withDeadlineAfter(2, TimeUnit.SECONDS)
          .getDevicePluginOptions(Empty.getDefaultInstance());
      return true;
    } catch (RuntimeException e) {
      return false;
    } finally {
      channel.shutdownNow();
    }
  }

  /**
   * The Ascend resources in the checkpoint's {@code Data.RegisteredDevices} (kubelet {@code
   * pkg/kubelet/cm/devicemanager/checkpoint/checkpoint.go}); none when it is absent or unreadable.
   */
  private static List<String> ascendResources(Path checkpoint) {
    List<String> found = new ArrayList<>();
    if (!Files.isRegularFile(checkpoint)) {
      return found;
    }
    try {
      JsonNode registered =
          new ObjectMapper().readTree(checkpoint.toFile()).path("Data").path("RegisteredDevices");
      registered
          .fieldNames()
          .forEachRemaining(
              name -> {
                if (ASCEND_RESOURCE.matcher(name).matches()) {
                  found.add(name);
                }
              });
    } catch (IOException e) {
      return found;
    }
    return found;
  }

  /** Another device plugin manages this node's chips. */
  public static final class ChipsManagedElsewhereException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ChipsManagedElsewhereException(String message) {
      super(message);
    }
  }
}
