package org.vnpu.dra;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.vnpu.api.LogLevel;

/**
 * How one DRA driver runs; {@code vnpu dra-driver --help} explains each.
 *
 * @param driverName the DRA driver name (ResourceSlices, DeviceClass, CDI kind)
 * @param node this node's name
 * @param registryDirectory the kubelet's plugin-registration directory
 * @param pluginDirectory where the DRA service socket goes ({@code <dir>/dra.sock})
 * @param cdiDirectory where CDI spec files go
 * @param stateDirectory shim configs, chip regions, the checkpoint
 * @param shimLibrary libvnpu.so on the host
 * @param driverMounts driver paths mounted into containers where they exist
 * @param sharing how chips are offered
 * @param slicesPerChip the slices of profiles and partitionable sharing
 * @param deviceOrder the devices' order in the ResourceSlices
 * @param shimLogLevel the shim's log level in containers
 * @param pollInterval how often the driver is asked for the chips
 */
public record DraSettings(
    String driverName,
    String node,
    Path registryDirectory,
    Path pluginDirectory,
    Path cdiDirectory,
    Path stateDirectory,
    Path shimLibrary,
    List<Path> driverMounts,
    Sharing sharing,
    int slicesPerChip,
    DeviceOrder deviceOrder,
    LogLevel shimLogLevel,
    Duration pollInterval) {

  /** The driver name the DeviceClass and the examples use. */
  public static final String DEFAULT_DRIVER_NAME = "vnpu.huawei.com";

  public DraSettings {
    driverMounts = List.copyOf(driverMounts);
  }

  /** The registration socket the kubelet's plugin watcher finds. */
  public Path registrationSocket() {
    return registryDirectory.resolve(driverName + "-reg.sock");
  }

  /** The DRA service socket. */
  public Path serviceSocket() {
    return pluginDirectory.resolve("dra.sock");
  }
}
