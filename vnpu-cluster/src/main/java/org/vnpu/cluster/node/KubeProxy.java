package org.vnpu.cluster.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.vnpu.cluster.Component;
import org.vnpu.cluster.ControlPlane;
import org.vnpu.cluster.Kubeconfig;
import org.vnpu.cluster.Probes;
import org.vnpu.cluster.UpstreamBinaries;

/**
 * kube-proxy of a real node, in iptables mode in the node's network namespace: the node's pods
 * reach the API server through the {@code kubernetes} Service (their in-cluster configuration), and
 * Volcano on this host reaches the scheduler extender's Service, routed to the node. It runs as
 * {@code system:kube-proxy}, which the API server's bootstrap RBAC binds to {@code
 * system:node-proxier}. It needs Debian's iptables on this host.
 */
public final class KubeProxy implements AutoCloseable {

  private static final Duration READY = Duration.ofSeconds(60);

  private final Component process;

  private KubeProxy(Component process) {
    this.process = process;
  }

  public static KubeProxy start(
      String node,
      ControlPlane plane,
      UpstreamBinaries binaries,
      NodeNetwork network,
      Path directory)
      throws IOException, InterruptedException {
    Files.createDirectories(directory);
    Path kubeconfig =
        Kubeconfig.withCertificate(
            directory.resolve("kube-proxy.kubeconfig"),
            plane.server(network.hostAddress()),
            plane.pki().caCertificate(),
            plane.pki().client("system:kube-proxy", List.of()));
    Path config = directory.resolve("config.yaml");
    Files.writeString(config, configuration(node, network, kubeconfig));
    Component process =
        Component.inNetworkNamespace(
            "kube-proxy-" + node,
            61,
            network.namespace(),
            List.of(binaries.binary("kube-proxy").toString(), "--config=" + config, "--v=1"),
            Map.of("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"),
            plane.logs(),
            plane.directory().resolve("pids"));
    process
        .start()
        .awaitReady(Probes.ok("http://" + network.nodeAddress() + ":10256/healthz", null), READY);
    return new KubeProxy(process);
  }

  @Override
  public void close() {
    process.stop();
  }

  /** The KubeProxyConfiguration, each setting with its reason. */
  static String configuration(String node, NodeNetwork network, Path kubeconfig) {
    return """
        # kube-proxy of a vNPU real node (vnpu real-node).
        apiVersion: kubeproxy.config.k8s.io/v1alpha1
        kind: KubeProxyConfiguration
        mode: iptables
        hostnameOverride: %1$s
        clientConnection:
          kubeconfig: %4$s
        bindAddress: %2$s
        # Health and metrics on the node's address, so that this host can probe them.
        healthzBindAddress: %2$s:10256
        metricsBindAddress: %2$s:10249
        clusterCIDR: %3$s
        iptables:
          # Every Service connection leaves with the node's address: a pod reaching a pod on its own
          # bridge through a Service gets the answer back through the node (no br_netfilter here).
          masqueradeAll: true
        conntrack:
          # Leave the host's conntrack table size alone: kube-proxy cannot set it from a network
          # namespace.
          maxPerCore: 0
        """
        .formatted(node, network.nodeAddress(), NodeNetwork.CLUSTER_POD_RANGE, kubeconfig);
  }
}
