package org.vnpu.deviceplugin;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.vnpu.api.LogLevel;
import org.vnpu.api.SplitMode;

/**
 * How one device plugin runs; {@code vnpu device-plugin --help} explains each.
 *
 * @param node this node's name in the API server
 * @param pluginDirectory the kubelet's device-plugin directory
 * @param stateDirectory where per-pod, per-chip and preload files live
 * @param splitMode the node's split mode whatever its {@code huawei.com/vnpu-mode} label says; null
 *     to follow the label
 * @param shimLibrary libvnpu.so on the host
 * @param driverMounts driver paths mounted into containers where they exist
 * @param maxSharesPerChip share slots advertised per chip
 * @param shimLogLevel the shim's log level in containers
 * @param pollInterval how often the driver is asked for the chips
 * @param heartbeatInterval how often inventory and heartbeat are published without a change
 * @param cleanupInterval how often the files of finished pods are removed
 * @param podResourcesSocket the kubelet's pod-resources socket, asked which pod got which devices
 * @param reservationWait how long an Allocate call waits for the entry of the pod being admitted,
 *     which the scheduler may write after Volcano has bound the pod
 */
public record DevicePluginSettings(
    String node,
    Path pluginDirectory,
    Path stateDirectory,
    SplitMode splitMode,
    Path shimLibrary,
    List<Path> driverMounts,
    int maxSharesPerChip,
    LogLevel shimLogLevel,
    Duration pollInterval,
    Duration heartbeatInterval,
    Duration cleanupInterval,
    Path podResourcesSocket,
    Duration reservationWait) {

  /** How often the registration loop looks at the sockets; a kubelet restart is seen within it. */
  public static final Duration SOCKET_CHECK_INTERVAL = Duration.ofMillis(100);

  /** How often the kubelet is asked who holds the hand-outs not settled yet. */
  public static final Duration HANDOUT_CHECK_INTERVAL = Duration.ofMillis(250);

  /** Where the kubelet serves its pod-resources API. */
  public static final Path DEFAULT_POD_RESOURCES_SOCKET =
      Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");

  /** The default of {@link #reservationWait}. */
  public static final Duration DEFAULT_RESERVATION_WAIT = Duration.ofSeconds(10);

  public DevicePluginSettings {
    driverMounts = List.copyOf(driverMounts);
  }
}
