package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.LogLevel;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.dra.DeviceOrder;
import org.vnpu.dra.DraDriver;
import org.vnpu.dra.DraSettings;
import org.vnpu.dra.Sharing;
import org.vnpu.driver.SimulatedNpuDriver;
import org.vnpu.kube.DaemonThreads;
import org.vnpu.kubelet.DraKubeletEmulator;
import org.vnpu.kubelet.KubeletEmulator;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.vnpu.kubelet.dra.v1.Claim;
import org.vnpu.kubelet.dra.v1.NodePrepareResourceResponse;
import org.vnpu.kubelet.dra.v1.NodePrepareResourcesResponse;

/**
 * A simulated node that offers its chips through DRA (docs/dra.md): its Node object, a simulated
 * chip inventory, the DRA kubelet emulator (plugin registration, wiping the node's slices at
 * start), the real DRA driver ({@code --sharing profiles}, quarters, chip by chip) publishing
 * ResourceSlices to the sandbox's validating API server, and the pod half of a kubelet that
 * prepares a pod's claims and starts its containers with their CDI devices under the shim.
 */
public final class DraNode implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DraNode.class);

  /** The driver's name and the DeviceClass's, as the chart installs them. */
  public static final String DRIVER = DraSettings.DEFAULT_DRIVER_NAME;

  private static final int SLICES_PER_CHIP = 4;

  private final NodeSpec spec;
  private final DraKubeletEmulator draKubelet;
  private final KubeletEmulator kubelet;
  private final DraDriver driver;
  private final PodRunner pods;
  private final ScheduledExecutorService heartbeat;

  private DraNode(
      NodeSpec spec,
      DraKubeletEmulator draKubelet,
      KubeletEmulator kubelet,
      DraDriver driver,
      PodRunner pods) {
    this.spec = spec;
    this.draKubelet = draKubelet;
    this.kubelet = kubelet;
    this.driver = driver;
    this.pods = pods;
    this.heartbeat =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("vnpu-sandbox-dra-node-" + spec.name()));
  }

  /** Creates the Node, starts the driver and waits until its slices are published. */
  public static DraNode start(
      NodeSpec spec,
      Path directory,
      NodeClients clients,
      NativeFiles natives,
      ChipCatalog catalog,
      SandboxOptions options)
      throws IOException {
    Files.createDirectories(directory);
    KubernetesClient client = clients.kubelet();
    createNode(client, spec.name());
    spec.writeInventory(directory, Set.of());
    Path registry = directory.resolve("plugins_registry");
    DraKubeletEmulator draKubelet =
        new DraKubeletEmulator(registry, driver -> wipe(client, spec.name(), driver)).start();
    DraSettings settings = settings(spec.name(), directory, registry, natives);
    SimulatedNpuDriver npus =
        new SimulatedNpuDriver(
            directory.resolve("inventory.yaml"), spec.name(), catalog, Clock.systemUTC());
    DraDriver driver = DraDriver.start(settings, npus, clients.devicePlugin());
    draKubelet.awaitPlugin(DRIVER, Duration.ofSeconds(10));
    KubeletEmulator kubelet = new KubeletEmulator(directory.resolve("device-plugins")).start();
    PodRunner pods =
        PodRunner.startOn(
            client,
            spec.name(),
            directory,
            kubelet,
            npus.chips()::get,
            natives,
            catalog,
            options,
            new Preparation(client, draKubelet, settings.cdiDirectory()));
    DraNode node = new DraNode(spec, draKubelet, kubelet, driver, pods);
    node.awaitSlices(client, Duration.ofSeconds(10));
    NodeLease lease = new NodeLease(client, spec.name());
    node.heartbeat.scheduleWithFixedDelay(
        lease::renew, 0, NodeLease.RENEW.toMillis(), TimeUnit.MILLISECONDS);
    return node;
  }

  /** Creates the Node, ready, with the sandbox's host resources and no device plugin's. */
  private static void createNode(KubernetesClient client, String node) {
    NodeStatus status = new NodeStatus();
    NodeLease.ready(status);
    SandboxNode.HOST.forEach(
        (name, amount) -> {
          status.getCapacity().put(name, new Quantity(amount));
          status.getAllocatable().put(name, new Quantity(amount));
        });
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(node)
                .addToLabels("kubernetes.io/hostname", node)
                .endMetadata()
                .withStatus(status)
                .build())
        .create();
  }

  /** The DRA driver's settings, as the chart sets them but with the sandbox's short interval. */
  private static DraSettings settings(
      String node, Path directory, Path registry, NativeFiles natives) {
    return new DraSettings(
        DRIVER,
        node,
        registry,
        directory.resolve("plugins").resolve(DRIVER),
        directory.resolve("cdi"),
        directory.resolve("state"),
        natives.shim(),
        List.of(),
        Sharing.PROFILES,
        SLICES_PER_CHIP,
        DeviceOrder.BINPACK,
        LogLevel.WARN,
        Duration.ofSeconds(1));
  }

  /**
   * The kubelet's wipe of a node's slices ({@code pkg/kubelet/cm/dra/plugin/dra_plugin_manager.go}:
   * a DeleteCollection selected by {@code spec.nodeName} and {@code spec.driver}), as a selected
   * list and deletes by name: the Node authorizer lets a node list, watch and delete-collect slices
   * only with its own {@code spec.nodeName} selector, and delete those of its node by name.
   */
  private static void wipe(KubernetesClient client, String node, String driver) {
    var selected = client.resources(ResourceSlice.class).withField("spec.nodeName", node);
    if (driver != null) {
      selected = selected.withField("spec.driver", driver);
    }
    selected.list().getItems().forEach(slice -> client.resource(slice).delete());
  }

  private void awaitSlices(KubernetesClient client, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (client
        .resources(ResourceSlice.class)
        .withField("spec.nodeName", spec.name())
        .list()
        .getItems()
        .isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the DRA driver of node " + spec.name() + " published no slice in " + timeout);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  public String name() {
    return spec.name();
  }

  public NodeSpec spec() {
    return spec;
  }

  /**
   * The kubelet's DRA manager ({@code pkg/kubelet/cm/dra/manager.go}): {@code NodePrepareResources}
   * for every claim of the pod (name, namespace and UID from the API server, {@code
   * prepareResources}), then per container the CDI devices of the claims it names ({@code
   * GetResources}), which the container runtime applies.
   */
  private record Preparation(KubernetesClient client, DraKubeletEmulator kubelet, Path cdi)
      implements PodRunner.ClaimPreparation {

    @Override
    public Map<String, ContainerAllocateResponse> prepare(Pod pod) throws IOException {
      Map<String, ResourceClaim> byPodName = claims(pod);
      NodePrepareResourcesResponse response = kubelet.prepare(DRIVER, asked(byPodName));
      Map<String, ContainerAllocateResponse> byContainer = new LinkedHashMap<>();
      for (Container container : pod.getSpec().getContainers()) {
        List<String> devices = new ArrayList<>();
        for (io.fabric8.kubernetes.api.model.ResourceClaim named :
            container.getResources().getClaims()) {
          ResourceClaim claim = byPodName.get(named.getName());
          if (claim == null) {
            throw new IOException(
                "container " + container.getName() + " names no claim " + named.getName());
          }
          NodePrepareResourceResponse prepared =
              response.getClaimsOrThrow(claim.getMetadata().getUid());
          if (!prepared.getError().isEmpty()) {
            throw new IOException(prepared.getError());
          }
          devices.addAll(
              DraKubeletEmulator.cdiDevices(
                  prepared, named.getRequest() == null ? "" : named.getRequest()));
        }
        if (!devices.isEmpty()) {
          byContainer.put(container.getName(), CdiDevices.edits(cdi, devices));
        }
      }
      return byContainer;
    }

    @Override
    public void unprepare(Pod pod) {
      try {
        kubelet.unprepare(DRIVER, asked(claims(pod)));
      } catch (RuntimeException e) {
        LOG.warn("claims of pod {} not unprepared: {}", pod.getMetadata().getName(), e.toString());
      }
    }

    /** The claims as the DRA service names them. */
    private static List<Claim> asked(Map<String, ResourceClaim> claims) {
      return claims.values().stream()
          .map(
              claim ->
                  Claim.newBuilder()
                      .setNamespace(claim.getMetadata().getNamespace())
                      .setName(claim.getMetadata().getName())
                      .setUid(claim.getMetadata().getUid())
                      .build())
          .toList();
    }

    /** The pod's claims by their name in the pod, as the API server has them. */
    private Map<String, ResourceClaim> claims(Pod pod) {
      Map<String, String> made = new HashMap<>();
      Pod current =
          client
              .pods()
              .inNamespace(pod.getMetadata().getNamespace())
              .withName(pod.getMetadata().getName())
              .get();
      Pod known = current == null ? pod : current;
      if (known.getStatus() != null) {
        for (PodResourceClaimStatus status : known.getStatus().getResourceClaimStatuses()) {
          made.put(status.getName(), status.getResourceClaimName());
        }
      }
      Map<String, ResourceClaim> claims = new LinkedHashMap<>();
      for (PodResourceClaim entry : known.getSpec().getResourceClaims()) {
        String name =
            entry.getResourceClaimName() != null
                ? entry.getResourceClaimName()
                : made.get(entry.getName());
        ResourceClaim claim =
            name == null
                ? null
                : client
                    .resources(ResourceClaim.class)
                    .inNamespace(pod.getMetadata().getNamespace())
                    .withName(name)
                    .get();
        if (claim != null) {
          claims.put(entry.getName(), claim);
        }
      }
      return claims;
    }
  }

  @Override
  public void close() {
    heartbeat.shutdownNow();
    pods.close();
    driver.close();
    draKubelet.close();
    kubelet.close();
  }
}
