package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.LabelKeys;
import org.vnpu.api.LogLevel;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.deviceplugin.DevicePlugin;
import org.vnpu.deviceplugin.DevicePluginSettings;
import org.vnpu.driver.PublishedReadingsDriver;
import org.vnpu.driver.SimulatedNpuDriver;
import org.vnpu.exporter.Exporter;
import org.vnpu.exporter.ExporterSettings;
import org.vnpu.kube.DaemonThreads;
import org.vnpu.kube.NodeLocks;
import org.vnpu.kube.VerifyingKeys;
import org.vnpu.kubelet.KubeletEmulator;
import org.vnpu.kubelet.PodResourcesEmulator;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.Device;

/**
 * One simulated node: its Node object, a simulated chip inventory, a kubelet emulator serving the
 * device-plugin directory, the real device plugin and exporter, and the pod half of the kubelet
 * running the node's pods. Like a kubelet it reports its host resources and, for every resource a
 * device plugin registered, the devices as the node's capacity and the healthy ones as allocatable.
 */
public final class SandboxNode implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SandboxNode.class);
  private static final Duration POLL = Duration.ofSeconds(1);
  private static final Duration READINGS_MAX_AGE = Duration.ofSeconds(10);

  private final NodeSpec spec;
  private final Path directory;
  private final KubernetesClient client;
  private final KubeletEmulator kubelet;
  private final PodResourcesEmulator podResources;
  private final DevicePlugin plugin;
  private final Exporter exporter;
  private final PodRunner pods;
  private final ScheduledExecutorService status;
  private final Set<Integer> unhealthy = new HashSet<>();
  private Map<String, Capacity> reported;

  /**
   * What the node reports besides devices: an Atlas 800I A2's 192 cores and 1.5 TiB, and the
   * kubelet's default {@code maxPods}.
   */
  static final Map<String, String> HOST = Map.of("cpu", "192", "memory", "1536Gi", "pods", "110");

  private record Capacity(int total, int healthy) {}

  private SandboxNode(
      NodeSpec spec,
      Path directory,
      KubernetesClient client,
      KubeletEmulator kubelet,
      PodResourcesEmulator podResources,
      DevicePlugin plugin,
      Exporter exporter,
      PodRunner pods) {
    this.spec = spec;
    this.directory = directory;
    this.client = client;
    this.kubelet = kubelet;
    this.podResources = podResources;
    this.plugin = plugin;
    this.exporter = exporter;
    this.pods = pods;
    this.status =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("vnpu-sandbox-node-" + spec.name()));
  }

  /**
   * The node's device plugin over the simulated driver of {@code inventory}, as the chart runs it
   * but with the sandbox's short intervals.
   */
  private static DevicePlugin startDevicePlugin(
      String node,
      Path directory,
      NativeFiles natives,
      Path inventory,
      ChipCatalog catalog,
      AllocationVerifier verifier,
      KubernetesClient client) {
    return DevicePlugin.start(
        new DevicePluginSettings(
            node,
            directory.resolve("device-plugins"),
            directory.resolve("state"),
            null,
            natives.shim(),
            List.of(),
            20,
            LogLevel.WARN,
            POLL,
            Duration.ofSeconds(10),
            POLL,
            directory.resolve(PodResourcesEmulator.DIRECTORY).resolve(PodResourcesEmulator.SOCKET),
            DevicePluginSettings.DEFAULT_RESERVATION_WAIT),
        new SimulatedNpuDriver(inventory, node, catalog, Clock.systemUTC()),
        verifier,
        client,
        Clock.systemUTC());
  }

  /** Creates the Node, labelled as docs/install.md says. */
  private static void createNode(KubernetesClient client, NodeSpec spec) {
    // Labelled as docs/install.md says; the chart's DaemonSets select huawei.com/vnpu=ready.
    Map<String, String> labels = new HashMap<>();
    labels.put("kubernetes.io/hostname", spec.name());
    labels.put(LabelKeys.VNPU, LabelKeys.VNPU_READY_VALUE);
    labels.put(LabelKeys.SPLIT_MODE, spec.mode().wireName());
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(spec.name())
                .withLabels(labels)
                .endMetadata()
                .build())
        .create();
  }

  /**
   * Creates the Node and starts everything that runs on it; the devices are registered.
   *
   * @param workloads whether admitted pods' containers run as processes; without, a pod is Running
   *     once the kubelet admitted it and its vNPUs were handed out
   */
  public static SandboxNode start(
      NodeSpec spec,
      Path directory,
      NodeClients clients,
      Path verifyingKeys,
      NativeFiles natives,
      ChipCatalog catalog,
      SandboxOptions options,
      Path kubeconfig)
      throws IOException {
    Files.createDirectories(directory);
    AllocationVerifier verifier =
        new AllocationVerifier(
            VerifyingKeys.inDirectory(verifyingKeys, Clock.systemUTC()), new PayloadCodec());
    KubernetesClient client = clients.kubelet();
    createNode(client, spec);
    spec.writeInventory(directory, Set.of());
    Path pluginDirectory = directory.resolve("device-plugins");
    Path state = directory.resolve("state");
    KubeletEmulator kubelet = new KubeletEmulator(pluginDirectory).start();
    Path podResourcesSocket =
        directory.resolve(PodResourcesEmulator.DIRECTORY).resolve(PodResourcesEmulator.SOCKET);
    Path inventory = directory.resolve("inventory.yaml");
    DevicePlugin plugin =
        startDevicePlugin(
            spec.name(), directory, natives, inventory, catalog, verifier, clients.devicePlugin());
    SimulatedNpuDriver driver =
        new SimulatedNpuDriver(inventory, spec.name(), catalog, Clock.systemUTC());
    // As the chart runs it: unprivileged, from the readings the device plugin publishes, watching
    // its node's pods only.
    Exporter exporter =
        Exporter.start(
            new ExporterSettings(
                spec.name(), new InetSocketAddress("127.0.0.1", 0), state, POLL, true),
            new PublishedReadingsDriver(state, READINGS_MAX_AGE, Clock.systemUTC()),
            verifier,
            clients.exporter());
    List<RegisteredChip> chips = driver.chips();
    PodRunner pods =
        PodRunner.startOn(
            client, spec.name(), directory, kubelet, chips::get, natives, catalog, options, null);
    PodResourcesEmulator podResources =
        new PodResourcesEmulator(podResourcesSocket, pods::activePods).start();
    writeDoctorArguments(
        directory, spec.name(), pluginDirectory, state, natives.shim(), verifyingKeys, kubeconfig);
    SandboxNode node =
        new SandboxNode(spec, directory, client, kubelet, podResources, plugin, exporter, pods);
    node.awaitDevices(Duration.ofSeconds(10));
    node.reportCapacity();
    node.status.scheduleWithFixedDelay(
        node::reportCapacity, POLL.toMillis(), POLL.toMillis(), TimeUnit.MILLISECONDS);
    NodeLease lease = new NodeLease(client, spec.name());
    node.status.scheduleWithFixedDelay(
        lease::renew, 0, NodeLease.RENEW.toMillis(), TimeUnit.MILLISECONDS);
    return node;
  }

  /**
   * {@code doctor.args}: the options {@code vnpu doctor @doctor.args} checks this node with, the
   * device plugin's; and, where Ascend Docker Runtime's binary would be, a stand-in for the
   * sandbox's container runtime ({@link ContainerRuntime}), which does its work in this process.
   */
  private static void writeDoctorArguments(
      Path directory,
      String node,
      Path pluginDirectory,
      Path state,
      Path shim,
      Path verifyingKeys,
      Path kubeconfig)
      throws IOException {
    Path runtime = Files.createDirectories(directory.resolve("ascend-docker-runtime"));
    Path binary = runtime.resolve("ascend-docker-runtime");
    Files.writeString(
        binary,
        "#!/bin/sh\n"
            + "# Stands where Ascend Docker Runtime's binary is on a node. The sandbox's container\n"
            + "# runtime (ContainerRuntime, in the sandbox's process) mounts the driver and creates\n"
            + "# hardware vNPUs from ASCEND_VNPU_SPECS as Ascend Docker Runtime does.\n"
            + "echo 'the sandbox runs its containers itself' >&2\n"
            + "exit 1\n");
    Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.write(
        directory.resolve("doctor.args"),
        Stream.of(
                "--node-name=" + node,
                "--driver=simulated",
                "--inventory=" + directory.resolve("inventory.yaml"),
                "--kubelet-dir=" + pluginDirectory,
                "--state-dir=" + state,
                "--shim-library=" + shim,
                "--verifying-keys=" + verifyingKeys,
                "--ascend-runtime=" + runtime,
                "--kubeconfig=" + kubeconfig)
            .map(option -> '"' + option + '"') // an argument file's quoting, for spaces in paths
            .toList());
  }

  public NodeSpec spec() {
    return spec;
  }

  public String name() {
    return spec.name();
  }

  /** Where this node's exporter serves {@code /metrics}. */
  public String metricsUrl() {
    return "http://127.0.0.1:" + exporter.port() + "/metrics";
  }

  /**
   * Like a kubelet restart: pods keep running; returns once the device plugin has registered every
   * resource again and the kubelet has its devices.
   */
  public void restartKubelet() {
    kubelet.restart(); // drops every plugin: a resource has devices again once it registered again
    awaitDevices(Duration.ofSeconds(10));
  }

  /** Waits until the kubelet has the devices of every resource the node's chips make. */
  private void awaitDevices(Duration timeout) {
    List<String> expected =
        new ArrayList<>(
            List.of(
                ResourceNames.VNPU_NUMBER,
                ResourceNames.VNPU_CORES,
                ResourceNames.VNPU_MEMORY_GIB));
    spec.chips().stream()
        .map(chip -> ResourceNames.typeResource(chip.type()))
        .distinct()
        .forEach(expected::add);
    kubelet.awaitDevices(expected, timeout);
  }

  /** Marks chip {@code index} healthy or not in the simulated inventory. */
  public synchronized void setHealthy(int index, boolean healthy) {
    if (healthy) {
      unhealthy.remove(index);
    } else {
      unhealthy.add(index);
    }
    spec.writeInventory(directory, unhealthy);
  }

  /** Seconds this node's device plugin took to answer the kubelet's Allocate calls so far. */
  public double allocateSeconds() {
    return pods.allocateSeconds();
  }

  /** The node's locks as its Lease carries them now. */
  public NodeLockSet locks() {
    return new NodeLocks(client, new PayloadCodec()).current(spec.name());
  }

  /** What each admitted pod's containers were handed out, by pod UID and container name. */
  public Map<String, Map<String, ContainerAllocateResponse>> handouts() {
    return pods.handouts();
  }

  /** The Allocate calls this node's kubelet emulator made so far, in order. */
  public List<KubeletEmulator.AllocateCall> allocateCalls() {
    return kubelet.allocateCalls();
  }

  /** The devices the kubelet emulator last saw from the plugin. */
  public List<Device> devices() {
    return kubelet.devices(ResourceNames.VNPU_NUMBER);
  }

  /**
   * kubelet {@code pkg/kubelet/nodestatus/setters.go MachineInfo()}: capacity and allocatable of
   * the host, and per device-plugin resource the devices ({@code devicemanager GetCapacity()}: all
   * of them as capacity, the healthy ones as allocatable).
   */
  private void reportCapacity() {
    Map<String, Capacity> capacities = new TreeMap<>();
    for (String resource : kubelet.resources()) {
      List<Device> devices = kubelet.devices(resource);
      capacities.put(
          resource,
          new Capacity(
              devices.size(),
              (int) devices.stream().filter(d -> d.getHealth().equals("Healthy")).count()));
    }
    if (capacities.equals(reported)) {
      return;
    }
    try {
      client
          .nodes()
          .withName(spec.name())
          .editStatus(
              node -> {
                NodeStatus status = node.getStatus() == null ? new NodeStatus() : node.getStatus();
                HOST.forEach(
                    (name, amount) -> {
                      status.getCapacity().put(name, new Quantity(amount));
                      status.getAllocatable().put(name, new Quantity(amount));
                    });
                NodeLease.ready(status);
                capacities.forEach(
                    (name, capacity) -> {
                      status
                          .getCapacity()
                          .put(name, new Quantity(Integer.toString(capacity.total())));
                      status
                          .getAllocatable()
                          .put(name, new Quantity(Integer.toString(capacity.healthy())));
                    });
                node.setStatus(status);
                return node;
              });
      reported = capacities;
    } catch (KubernetesClientException e) {
      LOG.warn("node {}: cannot report capacity: {}", spec.name(), e.getMessage());
    }
  }

  @Override
  public void close() {
    status.shutdownNow();
    pods.close();
    exporter.close();
    plugin.close();
    kubelet.close();
    podResources.close();
  }
}
