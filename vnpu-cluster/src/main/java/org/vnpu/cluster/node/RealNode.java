package org.vnpu.cluster.node;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.cluster.ControlPlane;
import org.vnpu.cluster.UpstreamBinaries;
import org.vnpu.sandbox.NativeFiles;
import org.vnpu.sandbox.NodesDirectory;

/**
 * One real Kubernetes node on this machine: its network namespace ({@link NodeNetwork}), its fake
 * Ascend hardware ({@link NodeHardware}), containerd with runc ({@link Containerd}) holding the
 * node's images, the kubelet ({@link Kubelet}) and kube-proxy ({@link KubeProxy}). No emulator
 * stands in for any of them.
 */
public final class RealNode implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RealNode.class);

  private static final Duration DRAIN = Duration.ofSeconds(60);

  /** The pods' cgroups in the pids hierarchy, as the kubelet's cgroupfs driver names them. */
  private static final Path POD_CGROUPS = Path.of("/sys/fs/cgroup/pids/kubepods");

  private final String name;
  private final Path directory;
  private KubernetesClient admin;
  private List<String> namespacesBefore = List.of();
  private final Instant started = Instant.now();
  private final List<AutoCloseable> parts = new ArrayList<>();
  private final KubeletRoot kubeletRoot = new KubeletRoot(KubeletRoot.MACHINE);
  private NodeNetwork network;
  private NodeHardware hardware;
  private Containerd containerd;
  private Kubelet kubelet;

  private RealNode(String name, Path directory) {
    this.name = name;
    this.directory = directory;
  }

  public String name() {
    return name;
  }

  public NodeNetwork network() {
    return network;
  }

  public NodeHardware hardware() {
    return hardware;
  }

  public Containerd containerd() {
    return containerd;
  }

  public Kubelet kubelet() {
    return kubelet;
  }

  /** The node's own files: host paths of the chart's volumes live here. */
  public Path directory() {
    return directory;
  }

  /**
   * Starts the node on a network made before the control plane (whose API server advertises the
   * network's host address) and waits until its Node is Ready.
   *
   * @param images the archives to import before the kubelet starts
   */
  public static RealNode start(
      String name,
      NodeNetwork network,
      ControlPlane plane,
      UpstreamBinaries binaries,
      KubernetesClient admin,
      NativeFiles natives,
      int chips,
      List<Path> images)
      throws IOException, InterruptedException {
    RealNode node = new RealNode(name, NodesDirectory.of(plane.directory()).resolve(name));
    boolean started = false;
    try {
      node.network = network;
      node.admin = admin;
      node.namespacesBefore = podNamespaces();
      Path root = node.kubeletRoot.claim();
      node.hardware = NodeHardware.install(node.directory, network.index(), chips, natives);
      node.parts.add(node.hardware);
      node.containerd =
          Containerd.start(
              binaries,
              network,
              node.directory.resolve("containerd"),
              plane.logs(),
              plane.directory().resolve("pids"));
      node.parts.add(node.containerd);
      for (Path image : images) {
        node.containerd.importImage(image);
      }
      node.kubelet =
          Kubelet.start(
              name,
              plane,
              binaries,
              network,
              node.containerd,
              node.directory.resolve("kubelet"),
              root,
              admin);
      node.parts.add(node.kubelet);
      node.parts.add(
          KubeProxy.start(name, plane, binaries, network, node.directory.resolve("kube-proxy")));
      LOG.info(
          "real node {} is Ready at {}: kubelet, containerd and kube-proxy in network namespace"
              + " {}",
          name,
          network.nodeAddress(),
          network.name());
      started = true;
    } finally {
      if (!started) {
        node.close();
      }
    }
    return node;
  }

  /**
   * Deletes the node's pods and waits (a while) for the kubelet to tear down their containers,
   * networks and volumes; then stops the node's processes, the last started first, removes its
   * device nodes, unmounts whatever is still mounted below its directory and deletes the kubelet's
   * root.
   */
  @Override
  public void close() {
    if (kubelet != null && containerd != null) {
      keepPodLogs();
      drain();
    }
    stop();
  }

  /**
   * Copies the containers' logs, which the kubelet keeps in {@code /var/log/pods} and deletes with
   * their pods, to {@code pod-logs/} of the node's directory.
   */
  private void keepPodLogs() {
    Path logs = Path.of("/var/log/pods");
    Path kept = directory.resolve("pod-logs");
    try (var files = Files.walk(logs)) {
      // Only this node's: the directory is the machine's, and may hold an earlier node's logs.
      for (Path file :
          files.filter(Files::isRegularFile).filter(this::writtenSinceStart).toList()) {
        Path target = kept.resolve(logs.relativize(file).toString());
        Files.createDirectories(target.getParent());
        Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("cannot keep the containers' logs of node {}: {}", name, e.toString());
    }
  }

  private boolean writtenSinceStart(Path file) {
    try {
      return Files.getLastModifiedTime(file).toInstant().isAfter(started);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Stops the node without asking the API server anything: for a shutdown hook (Ctrl-C), where the
   * API client's threads may already be gone. containerd's close still kills every container.
   */
  public void stop() {
    for (int i = parts.size() - 1; i >= 0; i--) {
      try {
        parts.get(i).close();
      } catch (Exception e) {
        LOG.warn("stopping {} of node {}: {}", parts.get(i), name, e.toString());
      }
    }
    parts.clear();
    killPodProcesses();
    Mounts.unmountBelow(directory);
    kubeletRoot.release();
    removePodNamespaces();
  }

  /**
   * Kills whatever still runs in a pod's cgroup (the kubelet's cgroupfs driver on cgroup v1):
   * containerd kills every container when it stops, but not once its socket is gone (the run's
   * directory deleted under it), and such a container — a device plugin, say — would meet the next
   * node on this machine.
   */
  private void killPodProcesses() {
    if (!Files.isDirectory(POD_CGROUPS)) {
      return;
    }
    try (var files = Files.walk(POD_CGROUPS)) {
      List<Long> pids = new ArrayList<>();
      for (Path procs :
          files.filter(file -> file.getFileName().toString().equals("cgroup.procs")).toList()) {
        Files.readAllLines(procs).stream().map(String::strip).map(Long::valueOf).forEach(pids::add);
      }
      pids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
      if (!pids.isEmpty()) {
        LOG.warn("node {}: killed {} process(es) left in the pods' cgroups", name, pids.size());
      }
    } catch (IOException | UncheckedIOException | NumberFormatException e) {
      LOG.warn("node {}: cannot sweep the pods' cgroups: {}", name, e.toString());
    }
  }

  /** The network namespaces containerd made for pod sandboxes ({@code cni-<uuid>}). */
  private static List<String> podNamespaces() throws IOException {
    Path namespaces = Path.of("/var/run/netns");
    if (!Files.isDirectory(namespaces)) {
      return List.of();
    }
    try (var files = Files.list(namespaces)) {
      return files
          .map(file -> file.getFileName().toString())
          .filter(file -> file.startsWith("cni-"))
          .toList();
    }
  }

  /**
   * Removes the pod sandboxes' network namespaces made while the node ran: containerd removes one
   * only when the kubelet garbage-collects its sandbox, which a stopped node never does.
   */
  private void removePodNamespaces() {
    try {
      for (String namespace : podNamespaces()) {
        if (!namespacesBefore.contains(namespace)) {
          HostCommands.attempt(List.of("ip", "netns", "delete", namespace));
        }
      }
    } catch (IOException e) {
      LOG.warn("cannot remove the pods' network namespaces of node {}: {}", name, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void drain() {
    try {
      admin.pods().inAnyNamespace().withField("spec.nodeName", name).withGracePeriod(0).delete();
      long deadline = System.nanoTime() + DRAIN.toNanos();
      while (!containerd.tasks().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(500);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("draining node {} before it stops: {}", name, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
