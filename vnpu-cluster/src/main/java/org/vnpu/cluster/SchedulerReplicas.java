package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The vNPU scheduler's replicas as local processes of {@code vnpu scheduler}, with the arguments
 * the release's Deployment gives its container and a token of its ServiceAccount: they elect a
 * leader on the real Lease, make the signing key and the extender's certificates in the real API
 * server, and serve both extender protocols. A {@link LeaderProxy} per port stands for the chart's
 * Service, which selects the leader's pod: Volcano and kube-scheduler call those ports.
 */
public final class SchedulerReplicas implements AutoCloseable {

  private static final Duration READY = Duration.ofSeconds(120);
  private static final String ACCOUNT = VnpuRelease.NAME + "-scheduler";

  private final KubernetesClient admin;
  private final String lease;
  private final List<Replica> replicas = new ArrayList<>();
  private final LeaderProxy plain;
  private final LeaderProxy tls;

  /** One replica: its process and its ports. */
  public record Replica(String identity, Component process, int plainPort, int tlsPort) {}

  private SchedulerReplicas(KubernetesClient admin, String lease) throws IOException {
    this.admin = admin;
    this.lease = lease;
    this.plain = new LeaderProxy("plain", 0, () -> leaderPort(false));
    this.tls = new LeaderProxy("tls", 0, () -> leaderPort(true));
  }

  /**
   * Starts {@code count} replicas and waits until each serves.
   *
   * @param vnpu the command that runs {@code vnpu} (java, its class path, the main class)
   */
  public static SchedulerReplicas start(
      ControlPlane plane,
      KubernetesClient admin,
      ServiceAccountTokens tokens,
      List<String> vnpu,
      int count)
      throws IOException, InterruptedException {
    List<String> arguments = VnpuRelease.schedulerArguments(admin);
    String lease =
        arguments.stream()
            .filter(argument -> argument.startsWith("--lease-name="))
            .map(argument -> argument.substring("--lease-name=".length()))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("the release names no --lease-name"));
    SchedulerReplicas replicas = new SchedulerReplicas(admin, lease);
    Path kubeconfig = tokens.kubeconfig(VnpuRelease.NAMESPACE, ACCOUNT);
    try {
      for (int i = 0; i < count; i++) {
        replicas.add(plane, vnpu, arguments, kubeconfig, ACCOUNT + "-" + i);
      }
    } catch (IOException | RuntimeException | InterruptedException e) {
      replicas.close();
      throw e;
    }
    return replicas;
  }

  private void add(
      ControlPlane plane, List<String> vnpu, List<String> arguments, Path kubeconfig, String name)
      throws IOException, InterruptedException {
    int plainPort = Probes.freePort();
    int tlsPort = Probes.freePort();
    List<String> command = new ArrayList<>(vnpu);
    for (String argument : arguments) {
      if (argument.startsWith("--listen=")) {
        command.add("--listen=127.0.0.1:" + plainPort);
      } else if (argument.startsWith("--tls-listen=")) {
        command.add("--tls-listen=127.0.0.1:" + tlsPort);
      } else {
        command.add(argument);
      }
    }
    // Its Service's names are in the release's arguments; here clients dial loopback.
    command.add("--tls-server-name=127.0.0.1");
    command.add("--identity=" + name);
    Component process =
        plane.start(
            name,
            command,
            Map.of(
                "KUBECONFIG",
                kubeconfig.toString(),
                "POD_NAMESPACE",
                VnpuRelease.NAMESPACE,
                "JAVA_TOOL_OPTIONS",
                // the chart's: 75 % of the Deployment's memory limit of 1 GiB
                "-Xmx768m"));
    process.awaitReady(Probes.ok("http://127.0.0.1:" + plainPort + "/healthz", null), READY);
    replicas.add(new Replica(name, process, plainPort, tlsPort));
  }

  /** Where Volcano calls the leader: plain HTTP, as the chart's Service port. */
  public String volcanoUrl() {
    return "http://127.0.0.1:" + port(false) + "/volcano";
  }

  /** Where kube-scheduler calls the leader over mutual TLS. */
  public String kubeSchedulerUrl() {
    return "https://127.0.0.1:" + port(true) + "/kube";
  }

  /** The leader's plain URL (health, metrics), through the proxy. */
  public String url() {
    return "http://127.0.0.1:" + port(false);
  }

  /**
   * The port clients dial: the proxy's, which follows the leader; a lone replica's own, as a
   * Service with one endpoint adds no hop worth emulating.
   */
  private int port(boolean secure) {
    if (replicas.size() == 1) {
      return secure ? replicas.get(0).tlsPort() : replicas.get(0).plainPort();
    }
    return secure ? tls.port() : plain.port();
  }

  public List<Replica> replicas() {
    return List.copyOf(replicas);
  }

  /** The identity holding the Lease now, if any. */
  public String leader() {
    try {
      Lease held = admin.leases().inNamespace(VnpuRelease.NAMESPACE).withName(lease).get();
      return held == null || held.getSpec() == null ? null : held.getSpec().getHolderIdentity();
    } catch (KubernetesClientException e) {
      return null;
    }
  }

  private OptionalInt leaderPort(boolean secure) {
    String leader = leader();
    return replicas.stream()
        .filter(replica -> replica.identity().equals(leader) && replica.process().alive())
        .mapToInt(replica -> secure ? replica.tlsPort() : replica.plainPort())
        .findFirst();
  }

  @Override
  public void close() {
    plain.close();
    tls.close();
    replicas.forEach(replica -> replica.process().stop());
  }
}
