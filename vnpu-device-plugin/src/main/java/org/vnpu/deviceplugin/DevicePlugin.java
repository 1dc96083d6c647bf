package org.vnpu.deviceplugin;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.deviceplugin.allocate.AllocationGate;
import org.vnpu.deviceplugin.allocate.Allocator;
import org.vnpu.deviceplugin.allocate.HandoutResolver;
import org.vnpu.deviceplugin.kubelet.ChipOwnership;
import org.vnpu.deviceplugin.kubelet.KubeletRegistrar;
import org.vnpu.deviceplugin.kubelet.KubeletServices;
import org.vnpu.deviceplugin.node.InventoryMonitor;
import org.vnpu.deviceplugin.node.NodePublisher;
import org.vnpu.deviceplugin.node.PodFileJanitor;
import org.vnpu.driver.NpuDriver;
import org.vnpu.driver.ReadingsPublisher;
import org.vnpu.handouts.Handouts;
import org.vnpu.handouts.NodeFiles;
import org.vnpu.kube.DaemonThreads;
import org.vnpu.kube.NodeLocks;

/**
 * One running device plugin: discovers chips, serves the kubelet, publishes the node, hands out
 * allocations and cleans up. Two threads: one keeps the kubelet registration alive, one follows the
 * driver and the files of finished pods.
 */
public final class DevicePlugin implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DevicePlugin.class);

  private final KubeletRegistrar registrar;
  private final HandoutResolver resolver;
  private final ScheduledExecutorService kubeletLoop;
  private final ScheduledExecutorService nodeLoop;

  private DevicePlugin(
      KubeletRegistrar registrar,
      HandoutResolver resolver,
      ScheduledExecutorService kubeletLoop,
      ScheduledExecutorService nodeLoop) {
    this.registrar = registrar;
    this.resolver = resolver;
    this.kubeletLoop = kubeletLoop;
    this.nodeLoop = nodeLoop;
  }

  /**
   * Starts a plugin; the first chip discovery happens before this returns.
   *
   * @throws ChipOwnership.ChipsManagedElsewhereException when another device plugin hands out this
   *     node's chips
   */
  public static DevicePlugin start(
      DevicePluginSettings settings,
      NpuDriver driver,
      AllocationVerifier verifier,
      KubernetesClient client,
      Clock clock) {
    ChipOwnership.check(settings.pluginDirectory());
    PayloadCodec codec = new PayloadCodec();
    NodeFiles files = new NodeFiles(settings.stateDirectory()).prepare();
    NodeLocks locks = new NodeLocks(client, codec);
    HandoutResolver resolver =
        new HandoutResolver(
            client, settings.node(), locks, files, settings.podResourcesSocket(), clock);
    Allocator allocator =
        allocator(settings, client, codec, files, locks, resolver, verifier, clock);
    KubeletServices services = new KubeletServices(allocator, settings.maxSharesPerChip());
    InventoryMonitor monitor =
        new InventoryMonitor(
            driver,
            new NodePublisher(
                client,
                settings.node(),
                settings.splitMode(),
                settings.maxSharesPerChip(),
                codec,
                clock),
            chips -> {
              allocator.inventory(chips);
              services.publish(chips);
            },
            settings.heartbeatInterval(),
            clock);
    PodFileJanitor janitor =
        new PodFileJanitor(client, settings.node(), locks, files, allocator::forget);
    KubeletRegistrar registrar = new KubeletRegistrar(settings.pluginDirectory(), services);

    monitor.poll();
    ReadingsPublisher readings = new ReadingsPublisher(driver, settings.stateDirectory(), clock);
    readings.run();
    ScheduledExecutorService kubeletLoop =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("vnpu-kubelet"));
    kubeletLoop.scheduleWithFixedDelay(
        DaemonThreads.surviving("registering with the kubelet", registrar::check),
        0,
        DevicePluginSettings.SOCKET_CHECK_INTERVAL.toMillis(),
        TimeUnit.MILLISECONDS);
    ScheduledExecutorService nodeLoop = nodeLoop(settings, monitor, janitor, resolver, readings);
    LOG.info(
        "device plugin for node {} started: driver {}, kubelet directory {}, state {}",
        settings.node(),
        driver.name(),
        settings.pluginDirectory(),
        settings.stateDirectory());
    return new DevicePlugin(registrar, resolver, kubeletLoop, nodeLoop);
  }

  /** The Allocate path: the gate over signed allocations, then the hand-outs it writes. */
  private static Allocator allocator(
      DevicePluginSettings settings,
      KubernetesClient client,
      PayloadCodec codec,
      NodeFiles files,
      NodeLocks locks,
      HandoutResolver resolver,
      AllocationVerifier verifier,
      Clock clock) {
    return new Allocator(
        client,
        settings.node(),
        new AllocationGate(settings.node(), codec, verifier),
        codec,
        files,
        new Handouts(files, settings.shimLibrary(), settings.driverMounts()),
        settings.shimLogLevel(),
        clock,
        locks,
        resolver::expect,
        settings.reservationWait());
  }

  /**
   * The node's loop: polls the driver, sweeps the files of pods that are gone, resolves hand-outs
   * and publishes the chips' readings, each at its interval.
   */
  private static ScheduledExecutorService nodeLoop(
      DevicePluginSettings settings,
      InventoryMonitor monitor,
      PodFileJanitor janitor,
      HandoutResolver resolver,
      ReadingsPublisher readings) {
    ScheduledExecutorService nodeLoop =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("vnpu-node"));
    nodeLoop.scheduleWithFixedDelay(
        DaemonThreads.surviving("polling the chips", monitor::poll),
        settings.pollInterval().toMillis(),
        settings.pollInterval().toMillis(),
        TimeUnit.MILLISECONDS);
    nodeLoop.scheduleWithFixedDelay(
        DaemonThreads.surviving("cleaning up pods' files", janitor::sweep),
        0,
        settings.cleanupInterval().toMillis(),
        TimeUnit.MILLISECONDS);
    nodeLoop.scheduleWithFixedDelay(
        DaemonThreads.surviving("resolving hand-outs", resolver::resolve),
        DevicePluginSettings.HANDOUT_CHECK_INTERVAL.toMillis(),
        DevicePluginSettings.HANDOUT_CHECK_INTERVAL.toMillis(),
        TimeUnit.MILLISECONDS);
    // On the driver's thread: the exporter reads these instead of the chips' device files.
    nodeLoop.scheduleWithFixedDelay(
        DaemonThreads.surviving("publishing readings", readings),
        settings.pollInterval().toMillis(),
        settings.pollInterval().toMillis(),
        TimeUnit.MILLISECONDS);
    return nodeLoop;
  }

  @Override
  public void close() {
    kubeletLoop.shutdownNow();
    nodeLoop.shutdownNow();
    try {
      kubeletLoop.awaitTermination(5, TimeUnit.SECONDS);
      nodeLoop.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    registrar.close();
    resolver.close();
    LOG.info("device plugin stopped");
  }
}
