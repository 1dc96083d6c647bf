package org.vnpu.cluster.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.vnpu.cluster.Component;
import org.vnpu.cluster.ControlPlane;
import org.vnpu.cluster.Kubeconfig;
import org.vnpu.cluster.Probes;
import org.vnpu.cluster.UpstreamBinaries;

/**
 * The real kubelet of a node, from the same Kubernetes release as the control plane, in the node's
 * network namespace over its containerd. It registers as {@code system:node:<name>} with a client
 * certificate of the cluster's CA, so the Node authorizer and NodeRestriction judge everything it
 * does. Its root directory (pod resources, plugin registry, checkpoints, pods' volumes) is the
 * machine's {@code /var/lib/kubelet} ({@link KubeletRoot}); its configuration and credentials are
 * in the node's directory.
 */
public final class Kubelet implements AutoCloseable {

  private static final Duration READY = Duration.ofSeconds(120);

  /** The label the chart's node agents select (values.yaml {@code nodeSelector}). */
  public static final String VNPU_LABEL = "huawei.com/vnpu=ready";

  private final String node;
  private final Component process;
  private final Path directory;
  private final Path root;
  private final BooleanSupplier healthy;

  private Kubelet(String node, Component process, Path directory, Path root, NodeNetwork network) {
    this.node = node;
    this.process = process;
    this.directory = directory;
    this.root = root;
    this.healthy = Probes.ok("http://" + network.nodeAddress() + ":10248/healthz", null);
  }

  /** The kubelet's kubeconfig: its client certificate, {@code system:node:<node>}. */
  public Path kubeconfig() {
    return directory.resolve("kubelet.kubeconfig");
  }

  /**
   * The kubelet's root directory: its pod-resources socket and DRA plugin registry are in it; its
   * device-plugin directory is not ({@code /var/lib/kubelet/device-plugins} whatever the root).
   */
  public Path root() {
    return root;
  }

  /**
   * Writes the kubelet's configuration and credentials, starts it and waits until its Node is
   * Ready.
   *
   * @param directory the kubelet's configuration and credentials (absolute)
   * @param root its root directory, claimed for it
   */
  public static Kubelet start(
      String node,
      ControlPlane plane,
      UpstreamBinaries binaries,
      NodeNetwork network,
      Containerd containerd,
      Path directory,
      Path root,
      KubernetesClient admin)
      throws IOException, InterruptedException {
    Files.createDirectories(directory);
    Path config = directory.resolve("config.yaml");
    Files.writeString(
        config, configuration(network, containerd.socket(), plane.pki().caCertificate()));
    Path kubeconfig =
        Kubeconfig.withCertificate(
            directory.resolve("kubelet.kubeconfig"),
            plane.server(network.hostAddress()),
            plane.pki().caCertificate(),
            plane.pki().node(node));
    Component process =
        Component.inNetworkNamespace(
            "kubelet-" + node,
            60,
            network.namespace(),
            List.of(
                binaries.binary("kubelet").toString(),
                "--config=" + config,
                "--kubeconfig=" + kubeconfig,
                "--root-dir=" + root,
                "--cert-dir=" + directory.resolve("pki"),
                "--hostname-override=" + node,
                "--node-ip=" + network.nodeAddress(),
                "--node-labels=" + VNPU_LABEL,
                "--v=1"),
            Map.of("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"),
            plane.logs(),
            plane.directory().resolve("pids"));
    Kubelet kubelet = new Kubelet(node, process, directory, root, network);
    kubelet.startAndAwait(admin);
    return kubelet;
  }

  private void startAndAwait(KubernetesClient admin) throws IOException, InterruptedException {
    // Healthy first: after a restart the Node is still Ready from before.
    process
        .start()
        .awaitReady(
            () -> healthy.getAsBoolean() && ready(admin.nodes().withName(node).get()), READY);
  }

  /** Stops the kubelet (SIGTERM) and starts it again, as an upgrade or a crash would. */
  public void restart(KubernetesClient admin) throws IOException, InterruptedException {
    process.stop();
    startAndAwait(admin);
  }

  static boolean ready(Node node) {
    return node != null
        && node.getStatus() != null
        && node.getStatus().getConditions() != null
        && node.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
  }

  @Override
  public void close() {
    process.stop();
  }

  /** The KubeletConfiguration, each setting with the reason it has on this machine. */
  static String configuration(NodeNetwork network, Path containerdSocket, Path clientCa) {
    return """
        # The kubelet of a vNPU real node (vnpu real-node), configured for this VM.
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        # This VM mounts cgroup v1, which Kubernetes keeps in maintenance mode; from 1.35 the
        # kubelet refuses to start on it unless this is false, so it is said here explicitly.
        failCgroupV1: false
        # No systemd manages cgroups here: cgroupfs, as containerd's runc is told.
        cgroupDriver: cgroupfs
        containerRuntimeEndpoint: unix://%3$s
        # The kubelet's API (logs, exec, the API server's calls) on the node's address only, and
        # no unauthenticated read-only port.
        address: %1$s
        readOnlyPort: 0
        # Health on the node's address too, so that this host can probe it across the veth.
        healthzBindAddress: %1$s
        healthzPort: 10248
        # Callers authenticate with a client certificate of the cluster's CA or a token the API
        # server vouches for, and the API server authorizes each call (SubjectAccessReview).
        authentication:
          anonymous: {enabled: false}
          webhook: {enabled: true}
          x509: {clientCAFile: %4$s}
        authorization: {mode: Webhook}
        clusterDomain: cluster.local
        # No cluster DNS runs here: pods resolve names as the node does (no clusterDNS).
        # The node's pod subnet, the one its CNI bridge hands out.
        podCIDR: %2$s
        # The VM may have swap; the kubelet only has to run beside it.
        failSwapOn: false
        # The control plane, the build and this node share one disk and memory: evict only when
        # they are really short, not at the defaults' 10 to 15 %%.
        evictionHard:
          memory.available: 100Mi
          nodefs.available: "1%%"
          nodefs.inodesFree: "1%%"
          imagefs.available: "1%%"
        # The images are imported, never pulled (no registry is reachable): garbage collection
        # would lose them for good, so it never starts. containerd pins the sandbox image too.
        imageGCHighThresholdPercent: 100
        imageGCLowThresholdPercent: 99
        # The scenario's kubelet restart should not wait long for pods to stop.
        shutdownGracePeriod: 0s
        """
        .formatted(network.nodeAddress(), network.podSubnet(), containerdSocket, clientCa);
  }
}
