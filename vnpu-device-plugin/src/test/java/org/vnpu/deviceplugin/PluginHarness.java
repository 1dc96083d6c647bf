package org.vnpu.deviceplugin;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.vnpu.api.LogLevel;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.driver.SimulatedNpuDriver;
import org.vnpu.kubelet.KubeletEmulator;
import org.vnpu.kubelet.PodResourcesEmulator;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;

/**
 * One node's device plugin, started against a kubelet emulator and an API server, with two
 * simulated 910B3 chips of 4 share slots each; shared by the tests and the benchmarks.
 */
public final class PluginHarness implements AutoCloseable {

  /** The resource the plugin registers. */
  public static final String RESOURCE = ResourceNames.VNPU_NUMBER;

  /** The share slots advertised per chip. */
  public static final int SLOTS = 4;

  /**
   * How long the harness's plugin waits for a reservation: long enough for a test to write one
   * after the call, short enough for a refusal not to slow the tests down.
   */
  public static final Duration RESERVATION_WAIT = Duration.ofMillis(1500);

  public final String node;
  public final Path directory;
  public final KubeletEmulator kubelet;
  public final ScheduledPods pods;
  public final DevicePlugin plugin;

  private PluginHarness(
      String node,
      Path directory,
      KubeletEmulator kubelet,
      ScheduledPods pods,
      DevicePlugin plugin) {
    this.node = node;
    this.directory = directory;
    this.kubelet = kubelet;
    this.pods = pods;
    this.plugin = plugin;
  }

  /** Creates the node, starts kubelet and plugin, and waits until the kubelet sees the devices. */
  public static PluginHarness start(KubernetesClient client, Path directory, String node) {
    ScheduledPods pods = new ScheduledPods(client, node);
    pods.createNode(Map.of());
    writeInventory(directory, true);
    KubeletEmulator kubelet = new KubeletEmulator(directory.resolve("device-plugins")).start();
    DevicePlugin plugin = plugin(client, directory, node);
    kubelet.awaitRegistration(RESOURCE, 1, Duration.ofSeconds(5));
    await().until(() -> kubelet.devices(RESOURCE).size() == 2 * SLOTS);
    return new PluginHarness(node, directory, kubelet, pods, plugin);
  }

  /** A device plugin for {@code node} in {@code directory}, as the harness starts one. */
  public static DevicePlugin plugin(KubernetesClient client, Path directory, String node) {
    return DevicePlugin.start(
        new DevicePluginSettings(
            node,
            directory.resolve("device-plugins"),
            directory.resolve("state"),
            null,
            Path.of("/opt/vnpu/libvnpu.so"),
            List.of(directory),
            SLOTS,
            LogLevel.INFO,
            Duration.ofMillis(50),
            Duration.ofSeconds(1),
            Duration.ofMillis(100),
            podResourcesSocket(directory),
            RESERVATION_WAIT),
        new SimulatedNpuDriver(
            directory.resolve("inventory.yaml"), node, ChipCatalog.builtIn(), Clock.systemUTC()),
        new AllocationVerifier(ScheduledPods.VERIFYING, new PayloadCodec()),
        client,
        Clock.systemUTC());
  }

  /** Where the harness's plugin asks the kubelet's pod-resources API. */
  public static Path podResourcesSocket(Path directory) {
    return directory.resolve(PodResourcesEmulator.DIRECTORY).resolve(PodResourcesEmulator.SOCKET);
  }

  /** The die ID of simulated chip {@code index}. */
  public String die(int index) {
    return "SIM-" + node + "-" + index;
  }

  /**
   * Allocate for one container, with {@code count} healthy device IDs as the kubelet picks them.
   */
  public ContainerAllocateResponse allocate(int count) {
    return kubelet.allocate(RESOURCE, kubelet.pickHealthy(RESOURCE, count, List.of()));
  }

  /** Rewrites the simulated inventory; chip 1 healthy or not. */
  public void setSecondChipHealthy(boolean healthy) {
    writeInventory(directory, healthy);
  }

  @Override
  public void close() {
    plugin.close();
    kubelet.close();
  }

  private static void writeInventory(Path directory, boolean secondHealthy) {
    try {
      Path temporary = directory.resolve("inventory.yaml.tmp");
      Files.writeString(
          temporary,
          "chips:\n"
              + "  - {type: 910B3, numaNode: 0}\n"
              + "  - {type: 910B3, numaNode: 1, healthy: "
              + secondHealthy
              + "}\n");
      Files.move(
          temporary,
          directory.resolve("inventory.yaml"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
