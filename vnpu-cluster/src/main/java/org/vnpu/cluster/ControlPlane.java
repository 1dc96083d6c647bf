package org.vnpu.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kube.KubeClients;

/**
 * A real Kubernetes control plane on loopback, from the upstream binaries: etcd, kube-apiserver
 * (TLS, client certificates and service-account tokens, {@code Node,RBAC}, NodeRestriction, an
 * audit log), kube-controller-manager (service-account tokens, ReplicaSets, the garbage collector,
 * ResourceClaims, disruption budgets, node lifecycle) and the default kube-scheduler. Everything it
 * writes is in one directory: {@code pki/}, {@code kubeconfigs/}, {@code logs/}, {@code pids/},
 * {@code etcd/}. Ports are chosen free; each start waits for readiness, with a time-out, and a
 * component that fails names itself with its log's last lines; what started is stopped again when a
 * later step fails. Volcano and vNPU are started on it by others ({@link VolcanoComponents}, {@code
 * RealCluster}).
 */
public final class ControlPlane implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ControlPlane.class);
  private static final Duration READY = Duration.ofSeconds(90);

  /** DRA's alpha sharing features, which the chart's {@code dra.sharing} values can use. */
  static final String FEATURE_GATES = "DRAPartitionableDevices=true,DRAConsumableCapacity=true";

  private final Path directory;
  private final ClusterPki pki;
  private final String server;
  private final List<Component> components = new ArrayList<>();
  private Path adminKubeconfig;
  private int apiPort;

  private ControlPlane(Path directory, ClusterPki pki, String server) {
    this.directory = directory;
    this.pki = pki;
    this.server = server;
  }

  /** Starts the control plane in {@code directory} (made when missing), on loopback only. */
  public static ControlPlane start(UpstreamBinaries binaries, Path directory)
      throws IOException, InterruptedException {
    return start(binaries, directory, null, 0);
  }

  /**
   * Starts the control plane in {@code directory} (made when missing), its kube-scheduler's client
   * limited to {@code schedulerQps} requests a second, with as large a burst (0: kube-scheduler's
   * own defaults, 50 a second with a burst of 100).
   */
  public static ControlPlane start(UpstreamBinaries binaries, Path directory, int schedulerQps)
      throws IOException, InterruptedException {
    return start(binaries, directory, null, schedulerQps);
  }

  /** Starts the control plane in {@code directory}, nodes reaching it at {@code nodeFacing}. */
  public static ControlPlane start(UpstreamBinaries binaries, Path directory, String nodeFacing)
      throws IOException, InterruptedException {
    return start(binaries, directory, nodeFacing, 0);
  }

  /**
   * Starts the control plane in {@code directory} (made when missing).
   *
   * @param nodeFacing an address of this host that real nodes reach it at, or null for loopback
   *     only: the API server then listens on every address and advertises this one, which is the
   *     endpoint of the {@code kubernetes} Service that pods reach it through
   * @param schedulerQps kube-scheduler's client limit, requests a second and burst; 0 for its own
   */
  private static ControlPlane start(
      UpstreamBinaries binaries, Path directory, String nodeFacing, int schedulerQps)
      throws IOException, InterruptedException {
    Files.createDirectories(directory);
    ClusterPki pki =
        ClusterPki.in(
            directory.resolve("pki"), nodeFacing == null ? List.of() : List.of(nodeFacing));
    int apiPort = Probes.freePort();
    ControlPlane plane = new ControlPlane(directory, pki, "https://127.0.0.1:" + apiPort);
    plane.apiPort = apiPort;
    boolean started = false;
    try {
      plane.startEtcdAndApiServer(binaries, apiPort, nodeFacing);
      plane.startControllers(binaries, schedulerQps);
      started = true;
    } finally {
      if (!started) {
        plane.close();
      }
    }
    return plane;
  }

  private void startEtcdAndApiServer(UpstreamBinaries binaries, int apiPort, String nodeFacing)
      throws IOException, InterruptedException {
    int etcdPort = Probes.freePort();
    int peerPort = Probes.freePort();
    String etcd = "http://127.0.0.1:" + etcdPort;
    start(
            "etcd",
            List.of(
                binaries.binary("etcd").toString(),
                "--name=vnpu",
                "--data-dir=" + directory.resolve("etcd"),
                "--listen-client-urls=" + etcd,
                "--advertise-client-urls=" + etcd,
                "--listen-peer-urls=http://127.0.0.1:" + peerPort,
                "--initial-advertise-peer-urls=http://127.0.0.1:" + peerPort,
                "--initial-cluster=vnpu=http://127.0.0.1:" + peerPort,
                "--quota-backend-bytes=4294967296",
                "--log-level=warn"))
        .awaitReady(Probes.ok(etcd + "/health", null), READY);
    Path audit = writeAuditPolicy();
    start(
            "kube-apiserver",
            List.of(
                binaries.binary("kube-apiserver").toString(),
                "--etcd-servers=" + etcd,
                "--bind-address=" + (nodeFacing == null ? "127.0.0.1" : "0.0.0.0"),
                "--advertise-address=" + (nodeFacing == null ? "127.0.0.1" : nodeFacing),
                "--secure-port=" + apiPort,
                "--tls-cert-file=" + pki.apiServerCertificate(),
                "--tls-private-key-file=" + pki.apiServerKey(),
                "--client-ca-file=" + pki.caCertificate(),
                "--kubelet-client-certificate=" + pki.kubeletClient()[0],
                "--kubelet-client-key=" + pki.kubeletClient()[1],
                // Nodes' names are not in any DNS here: reach a kubelet at its address.
                "--kubelet-preferred-address-types=InternalIP,Hostname",
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file=" + pki.serviceAccountPublicKey(),
                "--service-account-signing-key-file=" + pki.serviceAccountKey(),
                "--service-cluster-ip-range=10.96.0.0/16",
                "--authorization-mode=Node,RBAC",
                "--enable-admission-plugins=NodeRestriction,ResourceQuota,ValidatingAdmissionPolicy",
                "--allow-privileged=true",
                "--feature-gates=" + FEATURE_GATES,
                "--audit-policy-file=" + audit,
                "--audit-log-path=" + logs().resolve("audit.log"),
                "--audit-log-maxsize=512",
                "--profiling=false",
                "--v=1"))
        .awaitReady(Probes.ok(server + "/readyz", adminTls()), READY);
  }

  private void startControllers(UpstreamBinaries binaries, int schedulerQps)
      throws IOException, InterruptedException {
    Path controllers =
        writeKubeconfig("kube-controller-manager", ClusterPki.CONTROLLER_MANAGER, List.of());
    int controllersPort = Probes.freePort();
    Path[] controllersServing = pki.serving("kube-controller-manager");
    start(
            "kube-controller-manager",
            List.of(
                binaries.binary("kube-controller-manager").toString(),
                "--kubeconfig=" + controllers,
                "--bind-address=127.0.0.1",
                "--secure-port=" + controllersPort,
                "--tls-cert-file=" + controllersServing[0],
                "--tls-private-key-file=" + controllersServing[1],
                "--root-ca-file=" + pki.caCertificate(),
                "--service-account-private-key-file=" + pki.serviceAccountKey(),
                "--cluster-signing-cert-file=" + pki.caCertificate(),
                "--cluster-signing-key-file=" + pki.caKey(),
                "--use-service-account-credentials=true",
                "--controllers=*",
                "--leader-elect=false",
                "--feature-gates=" + FEATURE_GATES,
                "--v=1"))
        .awaitReady(
            Probes.ok("https://127.0.0.1:" + controllersPort + "/healthz", pki.trust()), READY);
    Path scheduler = writeKubeconfig("kube-scheduler", ClusterPki.SCHEDULER, List.of());
    int schedulerPort = Probes.freePort();
    Path[] schedulerServing = pki.serving("kube-scheduler");
    List<String> schedulerArguments =
        new ArrayList<>(
            List.of(
                binaries.binary("kube-scheduler").toString(),
                "--kubeconfig=" + scheduler,
                "--bind-address=127.0.0.1",
                "--secure-port=" + schedulerPort,
                "--tls-cert-file=" + schedulerServing[0],
                "--tls-private-key-file=" + schedulerServing[1],
                "--leader-elect=false",
                "--feature-gates=" + FEATURE_GATES,
                "--v=1"));
    if (schedulerQps > 0) {
      // cmd/kube-scheduler/app/options/deprecated.go: used when no --config is given
      schedulerArguments.add("--kube-api-qps=" + schedulerQps);
      schedulerArguments.add("--kube-api-burst=" + schedulerQps);
    }
    start("kube-scheduler", schedulerArguments)
        .awaitReady(
            Probes.ok("https://127.0.0.1:" + schedulerPort + "/healthz", pki.trust()), READY);
  }

  /**
   * Starts a component of this cluster: its log in {@code logs/}, its PID in {@code pids/}; it is
   * stopped with the control plane.
   */
  public Component start(String name, List<String> command) throws IOException {
    return start(name, command, Map.of());
  }

  /** {@link #start(String, List)} with environment variables. */
  public Component start(String name, List<String> command, Map<String, String> environment)
      throws IOException {
    Component component =
        new Component(
            name, components.size(), command, environment, logs(), directory.resolve("pids"));
    components.add(component);
    return component.start();
  }

  /** Every component started so far, in start order. */
  public List<Component> components() {
    return List.copyOf(components);
  }

  /** The API server's URL. */
  public String server() {
    return server;
  }

  /** The API server's URL at {@code address} of this host, as a real node reaches it. */
  public String server(String address) {
    return "https://" + address + ":" + apiPort;
  }

  public ClusterPki pki() {
    return pki;
  }

  public Path directory() {
    return directory;
  }

  public Path logs() {
    return directory.resolve("logs");
  }

  /**
   * The administrator's kubeconfig ({@code system:masters}), written once per start: a directory
   * used before holds one naming the port of the API server then.
   */
  public synchronized Path adminKubeconfig() throws IOException {
    if (adminKubeconfig == null) {
      adminKubeconfig = writeKubeconfig("admin", ClusterPki.ADMIN, List.of("system:masters"));
    }
    return adminKubeconfig;
  }

  /** A kubeconfig for {@code user} in {@code groups}, {@code kubeconfigs/<name>.kubeconfig}. */
  public Path writeKubeconfig(String name, String user, List<String> groups) throws IOException {
    return Kubeconfig.withCertificate(
        directory.resolve("kubeconfigs").resolve(name + ".kubeconfig"),
        server,
        pki.caCertificate(),
        pki.client(user, groups));
  }

  /** A client from a kubeconfig this control plane wrote. */
  public static KubernetesClient client(Path kubeconfig) throws IOException {
    return KubeClients.fromKubeconfig(kubeconfig, null);
  }

  private SSLContext adminTls() {
    return pki.client(ClusterPki.ADMIN, List.of("system:masters")).context(caCertificate());
  }

  private X509Certificate caCertificate() {
    try (var in = Files.newInputStream(pki.caCertificate())) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot read the cluster's CA: " + e.getMessage(), e);
    }
  }

  /**
   * Every request's metadata (user, verb, resource, response code), so that a run can count the
   * requests per pod and find any 403; the bodies of writes to pods and nodes too, so that a run
   * shows which annotation each writer set and in what order.
   */
  private Path writeAuditPolicy() throws IOException {
    Path policy = directory.resolve("audit-policy.yaml");
    Files.writeString(
        policy,
        """
        apiVersion: audit.k8s.io/v1
        kind: Policy
        omitStages: [RequestReceived]
        rules:
          - level: None
            nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
          - level: Request
            verbs: [create, update, patch]
            resources:
              - group: ""
                resources: [pods, pods/status, pods/binding, nodes]
          - level: Metadata
        """);
    return policy;
  }

  /** Stops every component, the last started first. */
  @Override
  public void close() {
    for (int i = components.size() - 1; i >= 0; i--) {
      components.get(i).stop();
    }
    LOG.info("control plane in {} stopped", directory);
  }
}
