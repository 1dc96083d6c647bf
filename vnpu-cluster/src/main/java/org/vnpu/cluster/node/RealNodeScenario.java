package org.vnpu.cluster.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.SplitMode;
import org.vnpu.cluster.ControlPlane;
import org.vnpu.cluster.SourceTree;
import org.vnpu.cluster.UpstreamBinaries;
import org.vnpu.cluster.VnpuRelease;
import org.vnpu.cluster.VolcanoComponents;
import org.vnpu.sandbox.ApiServer;
import org.vnpu.sandbox.NativeFiles;
import org.vnpu.sandbox.NodeSpec;
import org.vnpu.sandbox.Sandbox;
import org.vnpu.sandbox.SandboxOptions;
import org.vnpu.scheduler.VolcanoSchedulerConf;

/**
 * vNPU on a real node: the control plane, one node with the real kubelet, containerd, runc and
 * kube-proxy, the chart installed by Helm with its DaemonSets and the scheduler Deployment running
 * as pods from vNPU's image, Volcano calling the extender through its Service, and vNPU pods
 * running the workload under the shim in real containers. Each step prints what it checked; the
 * first that does not hold stops the run.
 */
public final class RealNodeScenario implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RealNodeScenario.class);

  static final String NODE = "npu-node-0";
  static final int CHIPS = 2;
  private static final Duration POD_READY = Duration.ofMinutes(3);
  private static final Duration VOLCANO_TIMEOUT = Duration.ofSeconds(2);

  private final Path directory;
  private final Checks checks;
  private final List<AutoCloseable> parts = new ArrayList<>();
  private ControlPlane plane;
  private KubernetesClient admin;
  private RealNode node;
  private NodePods pods;
  private ChartPods chart;

  /**
   * @param directory where everything goes (absolute): {@code cluster/}, {@code images/}
   * @param out where each step's outcome is printed
   */
  public RealNodeScenario(Path directory, PrintStream out) {
    this.directory = directory.toAbsolutePath();
    this.checks = new Checks(out);
  }

  /** Runs every step; throws at the first that does not hold. */
  public void run() throws IOException, InterruptedException {
    SourceTree tree = SourceTree.find(Path.of(""));
    UpstreamBinaries binaries = UpstreamBinaries.build(tree);
    NodeNetwork network = new NodeNetwork(0, "vnpu-" + NODE).create(true);
    parts.add(network::delete);
    plane = ControlPlane.start(binaries, directory.resolve("cluster"), network.hostAddress());
    parts.add(plane);
    admin = ControlPlane.client(plane.adminKubeconfig());
    parts.add(admin);
    NativeFiles natives = NativeFiles.unpack(directory.resolve("native"));
    NodeImages images = new NodeImages(directory.resolve("images"));
    List<Path> archives =
        List.of(images.pause(binaries), images.workload(natives), images.vnpu(tree));
    node = RealNode.start(NODE, network, plane, binaries, admin, natives, CHIPS, archives);
    parts.add(node);
    pods = new NodePods(admin, node.hardware());
    chart = new ChartPods(admin, checks);
    nodeAsRegistered();
    Map<String, Object> values = chartRunsAsPods(tree);
    devicePluginRegistered();
    new NodeIdentities(admin, plane, node, chart, checks).run();
    startVolcano(binaries);
    new NodeFlows(admin, node, pods, chart, checks).run();
    kubeletAgreement();
    new NodeDra(admin, node, pods, chart, checks).run(tree, plane.adminKubeconfig(), values);
    checks.say("real node: all " + checks.held() + " checks hold");
  }

  /**
   * The same cases on the real kubelet and on the sandbox's kubelet emulator (a sandbox node like
   * this one: two 910B3, the real device plugin), compared property by property.
   */
  private void kubeletAgreement() throws IOException, InterruptedException {
    Map<String, Map<String, String>> real =
        new KubeletCases(new RealKubeletSide(admin, chart, node), node.hardware()).run();
    Map<String, Map<String, String>> emulated;
    ApiServer.quietRequests();
    NodeSpec like = NodeSpec.uniform(NODE, "the real node's chips", SplitMode.SOFT, "910B3", CHIPS);
    try (Sandbox sandbox =
        Sandbox.start(
            new SandboxOptions(directory.resolve("emulator"), Sandbox.Driver.VOLCANO, List.of(like))
                .withoutWorkloads())) {
      emulated = new KubeletCases(new EmulatedKubeletSide(sandbox, NODE), node.hardware()).run();
    }
    KubeletAgreement agreement = new KubeletAgreement(real, emulated);
    Path table = directory.resolve("kubelet-agreement.md");
    Files.writeString(table, agreement.table());
    checks.check(
        agreement.agrees(),
        "the kubelet emulator did what the real kubelet did in "
            + agreement.rows().size()
            + " properties of "
            + real.size()
            + " cases ("
            + table
            + "):\n"
            + agreement.table().indent(6).stripTrailing());
  }

  private void nodeAsRegistered() {
    Node registered = admin.nodes().withName(NODE).get();
    checks.check(
        Kubelet.ready(registered), "node " + NODE + " is Ready, registered by the real kubelet");
    checks.check(
        "ready".equals(registered.getMetadata().getLabels().get("huawei.com/vnpu")),
        "it has the label huawei.com/vnpu=ready the chart's node agents select");
    checks.check(
        registered.getStatus().getAddresses().stream()
            .anyMatch(
                a ->
                    a.getType().equals("InternalIP")
                        && a.getAddress().equals(node.network().nodeAddress())),
        "its InternalIP is " + node.network().nodeAddress() + ", not loopback");
    // The chart's node agents tolerate its NPU taints (values.yaml tolerations); its scheduler
    // Deployment tolerates none, and this one node runs it too, so the node carries no taint.
    checks.check(
        registered.getSpec().getTaints() == null || registered.getSpec().getTaints().isEmpty(),
        "it has no taints, so the chart's scheduler runs on it too (NPU nodes of a cluster carry"
            + " the NPU taints the chart's node agents tolerate)");
    String runtime = registered.getStatus().getNodeInfo().getContainerRuntimeVersion();
    checks.check(
        runtime.startsWith("containerd://2."),
        "its runtime is "
            + runtime
            + ", kubelet "
            + registered.getStatus().getNodeInfo().getKubeletVersion());
  }

  /** Installs the chart on the real node; returns the values it was installed with. */
  private Map<String, Object> chartRunsAsPods(SourceTree tree)
      throws IOException, InterruptedException {
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("image.repository", NodeImages.VNPU.substring(0, NodeImages.VNPU.indexOf(':')));
    values.put("image.tag", NodeImages.VNPU.substring(NodeImages.VNPU.indexOf(':') + 1));
    values.put("image.pullPolicy", "Never");
    // A deleted pod's files go within seconds, for the scenario's check (the default is 1m).
    values.put("devicePlugin.cleanupInterval", "5s");
    // The chart's kube-scheduler needs its image from registry.k8s.io and the Service's DNS name;
    // Volcano schedules here.
    values.put("scheduler.kubeScheduler.enabled", false);
    // The kubelet's directories keep the chart's defaults: its root is /var/lib/kubelet, as on any
    // node (KubeletRoot).
    values.put("devicePlugin.stateDir", node.directory().resolve("state").toString());
    values.put("devicePlugin.shimDir", node.directory().resolve("shim").toString());
    values.put("devicePlugin.driverDir", node.hardware().driver().toString());
    values.put("devicePlugin.hostDriverFiles[0]", node.hardware().installInfo().toString());
    values.put(
        "devicePlugin.ascendRuntimeDir",
        node.directory().resolve("Ascend-Docker-Runtime").toString());
    VnpuRelease.installRunning(tree.chart(), plane.adminKubeconfig(), values);
    for (String daemonSet : List.of("device-plugin-default", "exporter")) {
      chart.awaitDaemonSet(VnpuRelease.NAME + "-" + daemonSet);
    }
    chart.awaitDeployment(VnpuRelease.NAME + "-scheduler");
    List<Pod> running =
        admin.pods().inNamespace(VnpuRelease.NAMESPACE).list().getItems().stream()
            .filter(NodePods::running)
            .toList();
    checks.check(
        running.stream()
            .allMatch(
                p ->
                    NODE.equals(p.getSpec().getNodeName())
                        && p.getSpec().getContainers().get(0).getImage().equals(NodeImages.VNPU)),
        running.size()
            + " pods of the chart run on the real node from "
            + NodeImages.VNPU
            + ": "
            + running.stream().map(p -> p.getMetadata().getName()).toList());
    return values;
  }

  private void devicePluginRegistered() throws InterruptedException {
    checks.await(
        "node " + NODE + " advertises the vNPU resources",
        POD_READY,
        () ->
            allocatable(ResourceNames.VNPU_NUMBER) > 0
                && allocatable(ResourceNames.VNPU_CORES) > 0
                && allocatable(ResourceNames.VNPU_MEMORY_GIB) > 0);
    checks.check(
        allocatable(ResourceNames.VNPU_CORES) == 100L * CHIPS
            && allocatable(ResourceNames.VNPU_MEMORY_GIB) == 64L * CHIPS,
        "the device plugin registered with the real kubelet: "
            + ResourceNames.VNPU_NUMBER
            + "="
            + allocatable(ResourceNames.VNPU_NUMBER)
            + ", "
            + ResourceNames.VNPU_CORES
            + "="
            + allocatable(ResourceNames.VNPU_CORES)
            + ", "
            + ResourceNames.VNPU_MEMORY_GIB
            + "="
            + allocatable(ResourceNames.VNPU_MEMORY_GIB));
  }

  private long allocatable(String resource) {
    Quantity quantity =
        admin.nodes().withName(NODE).get().getStatus().getAllocatable().get(resource);
    return quantity == null ? 0 : quantity.getNumericalAmount().longValue();
  }

  private void startVolcano(UpstreamBinaries binaries) throws IOException, InterruptedException {
    Service service =
        admin
            .services()
            .inNamespace(VnpuRelease.NAMESPACE)
            .withName(VnpuRelease.NAME + "-scheduler")
            .get();
    int port =
        service.getSpec().getPorts().stream()
            .filter(p -> p.getName().equals("http"))
            .findFirst()
            .orElseThrow()
            .getPort();
    String url = "http://" + service.getSpec().getClusterIP() + ":" + port + "/volcano";
    Path conf = plane.directory().resolve("volcano-scheduler.conf");
    Files.writeString(
        conf,
        VolcanoSchedulerConf.yaml(
            VolcanoSchedulerConf.merge(
                VolcanoSchedulerConf.volcanoDefault(), url, VOLCANO_TIMEOUT)));
    VolcanoComponents.start(plane, binaries, admin, conf);
    checks.check(
        true, "Volcano calls the extender at its Service " + url + " (kube-proxy on the node)");
  }

  /**
   * Stops everything without the API server, from a shutdown hook (Ctrl-C): the API client's own
   * threads may be stopping too, and a request then waits forever.
   */
  public synchronized void shutdown() {
    parts.remove(admin);
    int node = parts.indexOf(this.node);
    if (node >= 0) {
      parts.set(node, this.node::stop);
    }
    close();
  }

  /** Stops everything started, the last first; a second call does nothing. */
  @Override
  public synchronized void close() {
    for (int i = parts.size() - 1; i >= 0; i--) {
      try {
        parts.get(i).close();
      } catch (Exception e) {
        LOG.warn("stopping the real node scenario: {}", e.toString());
      }
    }
    parts.clear();
  }
}
