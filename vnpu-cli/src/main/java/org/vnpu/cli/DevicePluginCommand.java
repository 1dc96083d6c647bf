package org.vnpu.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.deviceplugin.DevicePlugin;
import org.vnpu.deviceplugin.DevicePluginSettings;
import org.vnpu.deviceplugin.NodeDoctor;
import org.vnpu.deviceplugin.kubelet.ChipOwnership;
import org.vnpu.driver.NpuDriver;
import org.vnpu.kube.KubeClients;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code vnpu device-plugin}: the node agent, run by a DaemonSet on every NPU node. */
@Command(
    name = "device-plugin",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run the device plugin of one NPU node (kubelet, node inventory, Allocate).",
      "",
      "Runs the vNPU device plugin of one node until stopped: discovers the NPUs, registers"
          + " huawei.com/vnpu-number with the kubelet (and again after every kubelet restart),"
          + " publishes the node's inventory and heartbeat, and answers Allocate for pods the vNPU"
          + " scheduler placed here. Files and sockets: docs/node-agent.md.",
      "",
      VnpuCommand.KUBERNETES_CONNECTION
    })
final class DevicePluginCommand implements Callable<Integer> {

  @Mixin NodeAgentOptions agent;

  @Mixin VerifyingKeysOption verifyingKeys;

  @Mixin NodeSetupOptions setup;

  @Option(
      names = "--max-shares-per-chip",
      paramLabel = "N",
      defaultValue = "20",
      description =
          "vNPUs one chip may hold at most; the kubelet sees this many devices per chip"
              + " (1..63, default ${DEFAULT-VALUE}).")
  int maxSharesPerChip;

  @Mixin HandoutOptions handout;

  @Option(
      names = "--heartbeat-interval",
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description =
          "How often inventory and heartbeat are written to the node without a change; keep it"
              + " well below the scheduler's heartbeat tolerance (default: ${DEFAULT-VALUE}).")
  Duration heartbeatInterval;

  @Option(
      names = "--cleanup-interval",
      paramLabel = "DURATION",
      defaultValue = "1m",
      converter = DurationConverter.class,
      description = "How often the files of finished pods are removed (default: ${DEFAULT-VALUE}).")
  Duration cleanupInterval;

  @Option(
      names = "--pod-resources-socket",
      paramLabel = "PATH",
      description =
          "The kubelet's pod-resources socket. Asked which pod got which devices when pods of"
              + " the same shape were allocated together, so that the scheduler can re-sign"
              + " swapped allocations (default: ${DEFAULT-VALUE}).")
  Path podResourcesSocket = DevicePluginSettings.DEFAULT_POD_RESOURCES_SOCKET;

  @Option(
      names = "--reservation-wait",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = DurationConverter.class,
      description =
          "How long an Allocate call waits for the reservation of the pod being admitted: under"
              + " Volcano the scheduler writes it just after answering allocateFunc, and Volcano"
              + " may bind the pod first (default: ${DEFAULT-VALUE}).")
  Duration reservationWait;

  @Mixin CatalogOption catalog;

  @Override
  public Integer call() throws InterruptedException {
    String node = agent.node();
    if (maxSharesPerChip < 1 || maxSharesPerChip > NodeRegistration.MAX_SHARES_PER_CHIP) {
      throw new InputException(
          "--max-shares-per-chip="
              + maxSharesPerChip
              + " is out of range 1.."
              + NodeRegistration.MAX_SHARES_PER_CHIP);
    }
    AllocationVerifier verifier = verifyingKeys.verifier();
    NpuDriver npus = agent.openDriver(catalog.load());
    DevicePluginSettings settings =
        new DevicePluginSettings(
            node,
            setup.kubeletDirectory,
            handout.stateDirectory,
            setup.splitMode,
            handout.shimLibrary,
            handout.driverMounts,
            maxSharesPerChip,
            handout.shimLogLevel,
            agent.pollInterval,
            heartbeatInterval,
            cleanupInterval,
            podResourcesSocket,
            reservationWait);
    KubernetesClient client = KubeClients.fromEnvironment();
    NodeDoctor.log(
        NodeDoctor.examine(setup.doctorSetup(node, handout, verifyingKeys), () -> npus, client));
    DevicePlugin plugin;
    try {
      plugin = DevicePlugin.start(settings, npus, verifier, client, Clock.systemUTC());
    } catch (ChipOwnership.ChipsManagedElsewhereException e) {
      client.close();
      throw new InputException(e.getMessage());
    }
    NodeAgentOptions.runUntilStopped(plugin, client);
    return 0;
  }
}
