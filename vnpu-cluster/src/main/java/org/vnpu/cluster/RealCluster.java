package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.sandbox.DraNode;
import org.vnpu.sandbox.NativeFiles;
import org.vnpu.sandbox.NodeClients;
import org.vnpu.sandbox.NodeSpec;
import org.vnpu.sandbox.NodesDirectory;
import org.vnpu.sandbox.Sandbox;
import org.vnpu.sandbox.SandboxNode;
import org.vnpu.sandbox.SandboxOptions;
import org.vnpu.sandbox.ScenarioCluster;
import org.vnpu.scheduler.VolcanoSchedulerConf;

/**
 * vNPU on a real control plane: the control plane and Volcano ({@link ControlPlane}, {@link
 * VolcanoComponents}), the chart as a Helm release ({@link VnpuRelease}), the scheduler's two
 * replicas and the chart's kube-scheduler as local processes, and simulated NPU nodes whose kubelet
 * emulators register as {@code system:node:<name>} with client certificates and whose device
 * plugins and exporters use their chart ServiceAccounts' tokens. Every request of every component
 * goes through the real authentication, RBAC, the Node authorizer, NodeRestriction and the chart's
 * admission policies. Scheduling is done by the real kube-scheduler and Volcano.
 */
public final class RealCluster implements ScenarioCluster, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RealCluster.class);
  private static final java.time.Duration VOLCANO_TIMEOUT = java.time.Duration.ofSeconds(1);

  /**
   * How a real cluster runs.
   *
   * @param directory where everything goes (the control plane's files, the nodes' state, logs)
   * @param driver which scheduler places the scenario's pods (both run)
   * @param vnpu the command that runs {@code vnpu}: java, its class path and the main class
   * @param nodes the simulated NPU nodes with the device plugin
   * @param draNodes the simulated NPU nodes with the DRA driver; when there are any, the chart is
   *     installed with {@code dra.enabled}, whose kube-scheduler profile serves claims only (the
   *     chart deploys DRA instead of the device plugin, so a cluster has one or the other)
   * @param values chart values on top of the real cluster's own
   * @param schedulerReplicas how many {@code vnpu scheduler} processes run; with one, the
   *     schedulers call it directly instead of through the leader's proxy
   * @param volcanoShareOfNodes Volcano's {@code --percentage-nodes-to-find} ({@link
   *     VolcanoComponents#start(ControlPlane, UpstreamBinaries, KubernetesClient, Path, int)})
   */
  public record Options(
      Path directory,
      Sandbox.Driver driver,
      List<String> vnpu,
      List<NodeSpec> nodes,
      List<NodeSpec> draNodes,
      Map<String, Object> values,
      int schedulerReplicas,
      int volcanoShareOfNodes,
      int kubeSchedulerQps) {

    /** Two scheduler replicas, as the chart deploys, and Volcano's own share of nodes to find. */
    public Options(
        Path directory,
        Sandbox.Driver driver,
        List<String> vnpu,
        List<NodeSpec> nodes,
        List<NodeSpec> draNodes,
        Map<String, Object> values) {
      this(
          directory,
          driver,
          vnpu,
          nodes,
          draNodes,
          values,
          2,
          VolcanoComponents.VOLCANOS_SHARE_OF_NODES,
          0);
    }

    public Options {
      if (schedulerReplicas < 1) {
        throw new IllegalArgumentException(
            "schedulerReplicas is " + schedulerReplicas + "; at least one scheduler must run");
      }
      VolcanoComponents.checkShareOfNodes("volcanoShareOfNodes", volcanoShareOfNodes);
      checkKubeSchedulerQps("kubeSchedulerQps", kubeSchedulerQps);
      vnpu = List.copyOf(vnpu);
      nodes = List.copyOf(nodes);
      draNodes = List.copyOf(draNodes);
      values = Map.copyOf(values);
      if (!draNodes.isEmpty() && (!nodes.isEmpty() || driver != Sandbox.Driver.KUBE_SCHEDULER)) {
        throw new IllegalArgumentException(
            "DRA nodes need kube-scheduler and no device-plugin nodes beside them: the chart"
                + " with dra.enabled deploys DRA instead of the device plugin");
      }
    }

    /**
     * Checks {@code value} as the control plane kube-scheduler's client limit: 0 for its defaults,
     * or requests a second.
     */
    public static void checkKubeSchedulerQps(String field, int value) {
      if (value < 0) {
        throw new IllegalArgumentException(
            field
                + " is "
                + value
                + "; as kube-scheduler's --kube-api-qps it must be requests a second, or 0 for"
                + " its default (50)");
      }
    }

    /** The chart's values: the caller's, with {@code dra.enabled} where there are DRA nodes. */
    Map<String, Object> chartValues() {
      Map<String, Object> all = new HashMap<>(values);
      if (!draNodes.isEmpty()) {
        all.put("dra.enabled", true);
      }
      return all;
    }
  }

  private final ControlPlane plane;
  private final KubernetesClient admin;
  private Options options;
  private final List<AutoCloseable> parts = new ArrayList<>();
  private final List<SandboxNode> nodes = new ArrayList<>();
  private final List<DraNode> draNodes = new ArrayList<>();
  private SchedulerReplicas schedulers;
  private ServiceAccountTokens tokens;
  private UpstreamBinaries binaries;

  private RealCluster(ControlPlane plane, KubernetesClient admin) {
    this.plane = plane;
    this.admin = admin;
  }

  /** Starts it all; the nodes are registered and their devices advertised when this returns. */
  public static RealCluster start(Options options) throws IOException, InterruptedException {
    SourceTree tree = SourceTree.find(Path.of(""));
    UpstreamBinaries binaries = UpstreamBinaries.build(tree);
    ControlPlane plane =
        ControlPlane.start(binaries, options.directory(), options.kubeSchedulerQps());
    RealCluster cluster = null;
    boolean started = false;
    try {
      cluster = new RealCluster(plane, ControlPlane.client(plane.adminKubeconfig()));
      cluster.binaries = binaries;
      cluster.options = options;
      cluster.startVnpu(tree, options);
      started = true;
    } finally {
      if (!started) {
        if (cluster != null) {
          cluster.close();
        } else {
          plane.close();
        }
      }
    }
    return cluster;
  }

  private void startVnpu(SourceTree tree, Options options)
      throws IOException, InterruptedException {
    VnpuRelease.install(tree.chart(), plane.adminKubeconfig(), admin, options.chartValues());
    tokens = new ServiceAccountTokens(plane, admin);
    schedulers =
        SchedulerReplicas.start(plane, admin, tokens, options.vnpu(), options.schedulerReplicas());
    parts.add(schedulers);
    Path conf = plane.directory().resolve("volcano-scheduler.conf");
    Files.writeString(
        conf,
        VolcanoSchedulerConf.yaml(
            VolcanoSchedulerConf.merge(
                VolcanoSchedulerConf.volcanoDefault(), schedulers.volcanoUrl(), VOLCANO_TIMEOUT)));
    VolcanoComponents.start(plane, binaries, admin, conf, options.volcanoShareOfNodes());
    VnpuKubeScheduler.start(plane, binaries, admin, tokens, schedulers);
    startNodes(options, tokens);
  }

  private void startNodes(Options options, ServiceAccountTokens tokens) throws IOException {
    NativeFiles natives = NativeFiles.unpack(plane.directory().resolve("native"));
    ChipCatalog catalog = ChipCatalog.builtIn();
    SandboxOptions sandbox =
        new SandboxOptions(plane.directory(), options.driver(), options.nodes());
    KubernetesClient exporter = serviceAccountClient(tokens, "exporter");
    KubernetesClient devicePlugin =
        options.nodes().isEmpty() ? null : serviceAccountClient(tokens, "device-plugin");
    for (NodeSpec spec : options.nodes()) {
      Path directory = nodeDirectory(spec.name());
      Path kubeconfig = nodeKubeconfig(spec);
      KubernetesClient kubelet = ControlPlane.client(kubeconfig);
      parts.add(kubelet);
      nodes.add(
          SandboxNode.start(
              spec,
              directory,
              new NodeClients(kubelet, devicePlugin, exporter),
              Sandbox.mountVerifyingKeys(
                  admin, VnpuRelease.NAMESPACE, VnpuRelease.NAME + "-verifying-keys", directory),
              natives,
              catalog,
              sandbox,
              kubeconfig));
      LOG.info(
          "node {} ({}) registered as system:node:{}",
          spec.name(),
          spec.description(),
          spec.name());
    }
    if (options.draNodes().isEmpty()) {
      return;
    }
    KubernetesClient draDriver = serviceAccountClient(tokens, "dra-driver");
    for (NodeSpec spec : options.draNodes()) {
      KubernetesClient kubelet = ControlPlane.client(nodeKubeconfig(spec));
      parts.add(kubelet);
      DraNode node =
          DraNode.start(
              spec,
              nodeDirectory(spec.name()),
              new NodeClients(kubelet, draDriver, exporter),
              natives,
              catalog,
              sandbox);
      draNodes.add(node);
      LOG.info(
          "DRA node {} ({}) registered as system:node:{}, its slices published",
          spec.name(),
          spec.description(),
          spec.name());
    }
  }

  /** The kubeconfig of the node's kubelet: {@code system:node:NAME} with a client certificate. */
  private Path nodeKubeconfig(NodeSpec spec) throws IOException {
    return plane.writeKubeconfig(
        "node-" + spec.name(), "system:node:" + spec.name(), List.of("system:nodes"));
  }

  /**
   * A client with a token of the release's ServiceAccount {@code vnpu-<component>} ({@code
   * device-plugin}, {@code exporter}, ...); it is closed with the cluster.
   */
  public KubernetesClient componentClient(String component) throws IOException {
    return serviceAccountClient(tokens, component);
  }

  /** A client with a token of the release's ServiceAccount {@code vnpu-<component>}. */
  private KubernetesClient serviceAccountClient(ServiceAccountTokens tokens, String component)
      throws IOException {
    KubernetesClient client =
        ControlPlane.client(
            tokens.kubeconfig(VnpuRelease.NAMESPACE, VnpuRelease.NAME + "-" + component));
    parts.add(client);
    return client;
  }

  /** A client of the cluster's administrator ({@code system:masters}). */
  @Override
  public KubernetesClient client() {
    return admin;
  }

  @Override
  public Sandbox.Driver driver() {
    return options.driver();
  }

  @Override
  public List<DraNode> draNodes() {
    return List.copyOf(draNodes);
  }

  @Override
  public String schedulerUrl() {
    return schedulers.url();
  }

  /**
   * What the scheduler wrote on the pod when it could not place it: kube-scheduler and Volcano both
   * set its {@code PodScheduled} condition to False, reason {@code Unschedulable}, with their
   * message.
   */
  @Override
  public Optional<String> unschedulable(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()))
        .filter(c -> "Unschedulable".equals(c.getReason()))
        .map(c -> c.getMessage() == null ? "Unschedulable" : c.getMessage())
        .filter(message -> !ScenarioCluster.waits(message))
        .findFirst();
  }

  /** Volcano v1.14 evicts only while the node's vNPU resources fall short in sum. */
  @Override
  public boolean volcanoPreemptsForAChip() {
    return false;
  }

  @Override
  public Path nodeDirectory(String node) {
    try {
      return NodesDirectory.of(plane.directory()).resolve(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public ControlPlane plane() {
    return plane;
  }

  public SchedulerReplicas schedulers() {
    return schedulers;
  }

  @Override
  public List<SandboxNode> nodes() {
    return List.copyOf(nodes);
  }

  public UpstreamBinaries binaries() {
    return binaries;
  }

  @Override
  public void close() {
    for (SandboxNode node : nodes) {
      node.close();
    }
    for (DraNode node : draNodes) {
      node.close();
    }
    for (int i = parts.size() - 1; i >= 0; i--) {
      try {
        parts.get(i).close();
      } catch (Exception e) {
        LOG.warn("stopping {}: {}", parts.get(i), e.toString());
      }
    }
    admin.close();
    plane.close();
  }
}
