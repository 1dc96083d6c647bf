package org.vnpu.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.vnpu.dra.DeviceOrder;
import org.vnpu.dra.DraDriver;
import org.vnpu.dra.DraSettings;
import org.vnpu.dra.NodeDevices;
import org.vnpu.dra.Sharing;
import org.vnpu.driver.NpuDriver;
import org.vnpu.kube.KubeClients;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code vnpu dra-driver}: vNPUs through Dynamic Resource Allocation, a kubelet plugin per node.
 */
@Command(
    name = "dra-driver",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run the DRA driver of one NPU node (kubelet plugin, ResourceSlices, CDI).",
      "",
      "Instead of the device plugin and the scheduler extender: registers with the kubelet's"
          + " plugin watcher, publishes this node's chips as resource.k8s.io/v1 ResourceSlices"
          + " (whole chips, fixed slices, partitionable devices or consumable capacity, see"
          + " --sharing), and prepares the claims the Kubernetes scheduler allocated here as CDI"
          + " devices with the vNPU shim's quota. Kubernetes 1.34 or later; docs/dra.md says"
          + " which feature gates each sharing mode needs.",
      "",
      VnpuCommand.KUBERNETES_CONNECTION
    })
final class DraDriverCommand implements Callable<Integer> {

  @Mixin NodeAgentOptions agent;

  @Option(
      names = "--driver-name",
      paramLabel = "NAME",
      defaultValue = DraSettings.DEFAULT_DRIVER_NAME,
      description =
          "The DRA driver's name, in ResourceSlices, the DeviceClass and CDI IDs (default:"
              + " ${DEFAULT-VALUE}).")
  String driverName;

  @Option(
      names = "--sharing",
      paramLabel = "MODE",
      defaultValue = "profiles",
      converter = SharingConverter.class,
      description =
          "profiles: each chip whole or as --slices-per-chip equal slices (default feature gates);"
              + " partitionable: whole chips and slices drawing on shared counters (gate"
              + " DRAPartitionableDevices); consumable: one device per chip, claims ask for AI Core"
              + " percent and memory (gate DRAConsumableCapacity). Default: ${DEFAULT-VALUE}.")
  Sharing sharing;

  @Option(
      names = "--slices-per-chip",
      paramLabel = "N",
      defaultValue = "4",
      description =
          "Equal slices a chip is offered as with profiles or partitionable sharing: 1 (whole"
              + " chips only), 2, 4 or 8 (default: ${DEFAULT-VALUE}).")
  int slicesPerChip;

  @Option(
      names = "--device-order",
      paramLabel = "ORDER",
      defaultValue = "binpack",
      converter = DeviceOrderConverter.class,
      description =
          "The devices' order in the ResourceSlices, which kube-scheduler's allocator takes the first"
              + " free one of: binpack (chip by chip: a chip fills before the next is used) or"
              + " spread (the first slice of every chip, then the second). It approximates the"
              + " policy; claims that leave make gaps (docs/dra.md). Default: ${DEFAULT-VALUE}.")
  DeviceOrder deviceOrder;

  @Option(
      names = "--registry-dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/kubelet/plugins_registry",
      description = "The kubelet's plugin-registration directory (default: ${DEFAULT-VALUE}).")
  Path registryDirectory;

  @Option(
      names = "--plugin-dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/kubelet/plugins/vnpu.huawei.com",
      description = "Where the DRA service socket dra.sock goes (default: ${DEFAULT-VALUE}).")
  Path pluginDirectory;

  @Option(
      names = "--cdi-dir",
      paramLabel = "DIR",
      defaultValue = "/var/run/cdi",
      description =
          "Where CDI spec files go; the container runtime must read this directory (default:"
              + " ${DEFAULT-VALUE}).")
  Path cdiDirectory;

  @Mixin HandoutOptions handout;

  @Mixin CatalogOption catalog;

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (!NodeDevices.SLICES.contains(slicesPerChip)) {
      throw new InputException("--slices-per-chip " + slicesPerChip + ": must be 1, 2, 4 or 8");
    }
    DraSettings settings =
        new DraSettings(
            driverName,
            agent.node(),
            registryDirectory,
            pluginDirectory,
            cdiDirectory,
            handout.stateDirectory,
            handout.shimLibrary,
            handout.driverMounts,
            sharing,
            slicesPerChip,
            deviceOrder,
            handout.shimLogLevel,
            agent.pollInterval);
    NpuDriver npus = agent.openDriver(catalog.load());
    KubernetesClient client = KubeClients.fromEnvironment();
    DraDriver driver;
    try {
      driver = DraDriver.start(settings, npus, client);
    } catch (IllegalStateException e) { // a feature gate the sharing mode needs is off
      client.close();
      throw new InputException(e.getMessage());
    }
    NodeAgentOptions.runUntilStopped(driver, client);
    return 0;
  }
}
