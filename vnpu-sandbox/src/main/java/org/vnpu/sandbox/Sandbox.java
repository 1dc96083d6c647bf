package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.CELDeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassSpec;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.kube.ExtenderCertificates;
import org.vnpu.kube.SigningKeys;
import org.vnpu.kube.VerifyingKeys;
import org.vnpu.scheduler.Leadership;
import org.vnpu.scheduler.Listeners;
import org.vnpu.scheduler.RebalanceController;
import org.vnpu.scheduler.RebalanceMode;
import org.vnpu.scheduler.RebalanceSettings;
import org.vnpu.scheduler.Scheduler;
import org.vnpu.scheduler.SchedulerService;
import org.vnpu.scheduler.SchedulerSettings;

/**
 * The whole system on one machine: the API server, the nodes, the scheduler extender over HTTP (and
 * its rebalancer when the options ask for it), the scheduling loop that calls it as Volcano or
 * kube-scheduler would, and the ReplicaSet controller that replaces evicted pods. Everything runs
 * in this process except the containers, which are processes of their own.
 */
public final class Sandbox implements ScenarioCluster, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Sandbox.class);

  /** Which scheduler the loop plays. */
  public enum Driver {
    VOLCANO,
    KUBE_SCHEDULER
  }

  /**
   * The rebalancer off, as sandboxes run by default: its passes list every pod, which would weigh
   * on a burst's measurement.
   */
  public static final RebalanceSettings NO_REBALANCING =
      RebalanceSettings.defaults().withMode(RebalanceMode.OFF);

  private static final String KEYS_NAMESPACE = "vnpu-system";
  private static final String SIGNING_SECRET = "vnpu-signing";
  private static final String VERIFYING_KEYS = "vnpu-verifying-keys";
  private static final String EXTENDER_TLS = "vnpu-extender-tls";
  private static final String LOOPBACK = "127.0.0.1";

  private final SandboxOptions options;

  private final ApiServer api;
  private final Path kubeconfig;
  private final List<SandboxNode> nodes;
  private final List<DraNode> draNodes;
  private final ChipCatalog catalog;
  private final SchedulingLoop loop;
  private final ReplicaSets replicaSets;
  private final ExtenderCertificates certificates;
  private SchedulerService scheduler;
  private final int schedulerPort;
  private final int schedulerTlsPort;

  private Sandbox(
      SandboxOptions options,
      ApiServer api,
      Path kubeconfig,
      List<SandboxNode> nodes,
      List<DraNode> draNodes,
      ChipCatalog catalog,
      ExtenderCertificates certificates,
      SchedulerService scheduler) {
    this.options = options;
    this.api = api;
    this.kubeconfig = kubeconfig;
    this.nodes = nodes;
    this.draNodes = draNodes;
    this.catalog = catalog;
    this.certificates = certificates;
    this.scheduler = scheduler;
    this.schedulerPort = scheduler.port();
    this.schedulerTlsPort = scheduler.tlsPort();
    ExtenderClient kubeExtender =
        options.kubeScheduler().mutualTls()
            ? ExtenderClient.kubeScheduler(kubeSchedulerUrl(), certificates.clientContext())
            : ExtenderClient.kubeScheduler(schedulerUrl(), null);
    SchedulingProtocol vnpu =
        options.driver() == Driver.VOLCANO
            ? new VolcanoSession(
                ExtenderClient.volcano(schedulerUrl()), api.client(), options.volcano())
            : new KubeSchedulerCycle(kubeExtender, api.client(), options.kubeScheduler());
    // Pods with ResourceClaims go to kube-scheduler's DRA profile (the chart's with dra.enabled),
    // whatever schedules the vNPU pods.
    SchedulingProtocol claims =
        new DraSchedulerCycle(
            kubeExtender, api.client(), KubeSchedulerConfig.shippedForDra().extenderWeight());
    SchedulingProtocol protocol =
        (pod, books) ->
            DraSchedulerCycle.usesClaims(pod)
                ? claims.schedule(pod, books)
                : vnpu.schedule(pod, books);
    this.loop = new SchedulingLoop(api.client(), protocol, Clock.systemUTC()).start();
    this.replicaSets = new ReplicaSets(api.client()).start();
  }

  /**
   * Starts the API server, the nodes (registered when this returns), the scheduler and the loop.
   */
  public static Sandbox start(SandboxOptions options) throws IOException {
    ApiServer api = ApiServer.start(0);
    List<SandboxNode> nodes = new ArrayList<>();
    List<DraNode> draNodes = new ArrayList<>();
    try {
      Path kubeconfig = api.writeKubeconfig(options.directory().resolve("kubeconfig"));
      NativeFiles natives = NativeFiles.unpack(options.directory().resolve("native"));
      ChipCatalog catalog = ChipCatalog.builtIn();
      // The scheduler makes the signing key in the API server as in a cluster; nodes verify with
      // the public keys it publishes there.
      // kube-scheduler reaches the extender over mutual TLS, with the certificates the scheduler
      // keeps in a Secret, as the chart wires it.
      ExtenderCertificates certificates =
          ExtenderCertificates.bootstrap(
              api.client(), KEYS_NAMESPACE, EXTENDER_TLS, List.of(LOOPBACK));
      SchedulerService scheduler =
          startScheduler(api.client(), catalog, certificates, 0, 0, options.rebalancing());
      Path nodesDirectory = NodesDirectory.of(options.directory());
      for (NodeSpec spec : options.nodes()) {
        Path directory = nodesDirectory.resolve(spec.name());
        nodes.add(
            SandboxNode.start(
                spec,
                directory,
                NodeClients.shared(api.client()),
                mountVerifyingKeys(api.client(), directory),
                natives,
                catalog,
                options,
                kubeconfig));
        LOG.info("node {} ({}) is up", spec.name(), spec.description());
      }
      if (!options.draNodes().isEmpty()) {
        api.client().resource(deviceClass()).create();
      }
      for (NodeSpec spec : options.draNodes()) {
        Path directory = nodesDirectory.resolve(spec.name());
        draNodes.add(
            DraNode.start(
                spec, directory, NodeClients.shared(api.client()), natives, catalog, options));
        LOG.info("DRA node {} ({}) is up", spec.name(), spec.description());
      }
      return new Sandbox(
          options, api, kubeconfig, nodes, draNodes, catalog, certificates, scheduler);
    } catch (IOException | RuntimeException e) {
      draNodes.forEach(DraNode::close);
      nodes.forEach(SandboxNode::close);
      api.close();
      throw e;
    }
  }

  /** The DeviceClass the chart installs with {@code dra.enabled}: every device of the driver. */
  private static DeviceClass deviceClass() {
    DeviceSelector selector = new DeviceSelector();
    selector.setCel(new CELDeviceSelector("device.driver == \"" + DraNode.DRIVER + "\""));
    DeviceClass deviceClass = new DeviceClass();
    deviceClass.setMetadata(new ObjectMetaBuilder().withName(DraNode.DRIVER).build());
    deviceClass.setSpec(new DeviceClassSpec());
    deviceClass.getSpec().setSelectors(List.of(selector));
    return deviceClass;
  }

  /**
   * The verifying-keys ConfigMap as the kubelet mounts it into a node agent's pod, one file per
   * key, where the chart's device plugin and exporter read it (the scheduler keeps its key, so the
   * ConfigMap does not change while the sandbox runs). The kubelet's ConfigMap volume ({@code
   * pkg/volume/configmap/configmap.go SetUpAt}) writes each data key as a file through {@code
   * pkg/volume/util/atomic_writer.go}, whose {@code ..data} link and dot-named timestamped
   * directory are left out here: the reader skips dot names and follows links. Were the keys not
   * written, no allocation would verify and every sandbox test that runs a pod would fail.
   */
  private static Path mountVerifyingKeys(KubernetesClient client, Path nodeDirectory)
      throws IOException {
    return mountVerifyingKeys(client, KEYS_NAMESPACE, VERIFYING_KEYS, nodeDirectory);
  }

  /** {@link #mountVerifyingKeys(KubernetesClient, Path)} of ConfigMap {@code namespace/name}. */
  public static Path mountVerifyingKeys(
      KubernetesClient client, String namespace, String name, Path nodeDirectory)
      throws IOException {
    ConfigMap keys = client.configMaps().inNamespace(namespace).withName(name).get();
    Path mounted = Files.createDirectories(nodeDirectory.resolve("verifying-keys"));
    for (Map.Entry<String, String> key : keys.getData().entrySet()) {
      Files.writeString(mounted.resolve(key.getKey()), key.getValue());
    }
    return mounted;
  }

  private static AllocationVerifier verifier(KubernetesClient client) {
    return new AllocationVerifier(
        VerifyingKeys.inConfigMap(client, KEYS_NAMESPACE, VERIFYING_KEYS, Clock.systemUTC()),
        new PayloadCodec());
  }

  private static SchedulerService startScheduler(
      KubernetesClient client,
      ChipCatalog catalog,
      ExtenderCertificates certificates,
      int port,
      int tlsPort,
      RebalanceSettings rebalancing)
      throws IOException {
    SigningKey key = SigningKeys.bootstrap(client, KEYS_NAMESPACE, SIGNING_SECRET, VERIFYING_KEYS);
    Scheduler scheduler =
        new Scheduler(
            client,
            catalog,
            new AllocationSigner(key, new PayloadCodec()),
            verifier(client),
            SchedulerSettings.defaults().withDraDriver(DraNode.DRIVER),
            Clock.systemUTC());
    SchedulerService service =
        SchedulerService.start(
            Listeners.plain(new InetSocketAddress(LOOPBACK, port))
                .withMutualTls(
                    new InetSocketAddress(LOOPBACK, tlsPort), certificates.serverContext()),
            scheduler,
            client,
            Leadership.alone());
    service.rebalance(
        new RebalanceController(client, scheduler.rebalancing(), rebalancing, Clock.systemUTC()));
    return service;
  }

  @Override
  public KubernetesClient client() {
    return api.client();
  }

  @Override
  public Driver driver() {
    return options.driver();
  }

  @Override
  public Optional<String> unschedulable(Pod pod) {
    SchedulingLoop.Outcome outcome = loop.outcomes().get(pod.getMetadata().getUid());
    return outcome != null
            && !outcome.attempt().isBound()
            && !ScenarioCluster.waits(outcome.attempt().reason())
        ? Optional.of(outcome.attempt().reason())
        : Optional.empty();
  }

  @Override
  public Path nodeDirectory(String node) {
    try {
      return NodesDirectory.of(options.directory()).resolve(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public SandboxOptions options() {
    return options;
  }

  public String apiServerUrl() {
    return api.url();
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The extender's plain HTTP: Volcano's verbs, health and metrics. */
  @Override
  public String schedulerUrl() {
    return "http://" + LOOPBACK + ":" + schedulerPort;
  }

  /** The extender's TLS port, where kube-scheduler's verbs are served to its client certificate. */
  public String kubeSchedulerUrl() {
    return "https://" + LOOPBACK + ":" + schedulerTlsPort;
  }

  /**
   * Seconds the schedulers spent placing pods so far (their cycles, the extender's verbs included).
   */
  public double placingSeconds() {
    return loop.placingSeconds();
  }

  /** Seconds the schedulers' bindings took so far, summed over those that ran at once. */
  public double bindingSeconds() {
    return loop.bindingSeconds();
  }

  @Override
  public List<SandboxNode> nodes() {
    return List.copyOf(nodes);
  }

  /** The nodes that offer their chips through DRA. */
  @Override
  public List<DraNode> draNodes() {
    return List.copyOf(draNodes);
  }

  /** The node called {@code name}. */
  @Override
  public SandboxNode node(String name) {
    return nodes.stream()
        .filter(node -> node.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no sandbox node " + name));
  }

  /** What the scheduling loop made of each pod so far, by UID. */
  public Map<String, SchedulingLoop.Outcome> outcomes() {
    return loop.outcomes();
  }

  /**
   * Stops the scheduler and starts a new one on the same port, with a ledger rebuilt from scratch;
   * like a restarted pod, a start that cannot read the API server is tried again (three times).
   */
  public synchronized void restartScheduler() throws IOException {
    stopScheduler();
    startSchedulerAgain();
  }

  /** Stops the scheduler: its port answers nothing until {@link #startSchedulerAgain()}. */
  public synchronized void stopScheduler() {
    scheduler.close();
  }

  /** Starts a scheduler on the stopped one's port, with a ledger rebuilt from scratch. */
  public synchronized void startSchedulerAgain() throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        scheduler =
            startScheduler(
                api.client(),
                catalog,
                certificates,
                schedulerPort,
                schedulerTlsPort,
                options.rebalancing());
        LOG.info("scheduler restarted on {}", schedulerUrl());
        return;
      } catch (KubernetesClientException e) {
        if (attempt == 3) {
          throw new IOException("the scheduler did not start again: " + e.getMessage(), e);
        }
        LOG.warn("scheduler restart {} failed, trying again: {}", attempt, e.getMessage());
      }
    }
  }

  @Override
  public void close() {
    replicaSets.close();
    loop.close();
    scheduler.close();
    draNodes.forEach(DraNode::close);
    nodes.forEach(SandboxNode::close);
    api.close();
  }
}
