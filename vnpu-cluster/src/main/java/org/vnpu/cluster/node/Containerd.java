package org.vnpu.cluster.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.cluster.Component;
import org.vnpu.cluster.UpstreamBinaries;
import org.vnpu.kubelet.UnixSockets;

/**
 * The node's container runtime: containerd 2.x with the runc shim, its CRI plugin serving the
 * kubelet, CDI on (the DRA driver's devices), runc with the cgroupfs driver on cgroup v1, and the
 * node's pod network by the CNI bridge plugin. Everything it keeps is under the node's directory;
 * it runs in the node's network namespace.
 */
public final class Containerd implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Containerd.class);
  private static final Duration READY = Duration.ofSeconds(60);

  private final UpstreamBinaries binaries;
  private final Path directory;
  private final Component process;

  private Containerd(UpstreamBinaries binaries, Path directory, Component process) {
    this.binaries = binaries;
    this.directory = directory;
    this.process = process;
  }

  /** The socket the kubelet and ctr talk to. */
  public Path socket() {
    return directory.resolve("containerd.sock");
  }

  /** Where CDI specs go: containerd reads them to inject a claim's devices. */
  public Path cdiSpecs() {
    return directory.resolve("cdi");
  }

  /**
   * Writes the configuration and the pod network's, starts containerd and waits for its socket.
   *
   * @param directory the runtime's own directory (absolute)
   * @param logs where its log goes
   * @param pids where its PID file goes
   */
  public static Containerd start(
      UpstreamBinaries binaries, NodeNetwork network, Path directory, Path logs, Path pids)
      throws IOException, InterruptedException {
    UnixSockets.requireFits(directory.resolve("containerd.sock"));
    Files.createDirectories(directory.resolve("cni"));
    Files.createDirectories(directory.resolve("cdi"));
    Files.writeString(directory.resolve("cni/10-vnpu.conflist"), podNetwork(network));
    Path config = directory.resolve("config.toml");
    Files.writeString(config, config(binaries, directory));
    Component process =
        Component.inNetworkNamespace(
            "containerd-" + network.name(),
            50,
            network.namespace(),
            List.of(binaries.binary("containerd").toString(), "--config", config.toString()),
            // The runc shim is found on PATH.
            Map.of("PATH", binaries.binary("containerd").getParent() + ":/usr/sbin:/usr/bin:/bin"),
            logs,
            pids);
    Containerd containerd = new Containerd(binaries, directory, process);
    process.start().awaitReady(containerd::answers, READY);
    return containerd;
  }

  /** Imports an image archive into the namespace the CRI plugin uses. */
  public void importImage(Path archive) throws IOException, InterruptedException {
    String output =
        ctr(List.of("-n", "k8s.io", "images", "import", "--all-platforms", archive.toString()));
    LOG.info(
        "imported {} into containerd: {}",
        archive.getFileName(),
        output.lines().findFirst().orElse("").replaceAll("\\s+", " ").strip());
  }

  /** The IDs of the containers running on the node (pod sandboxes included). */
  public List<String> tasks() throws IOException, InterruptedException {
    return ctr(List.of("-n", "k8s.io", "tasks", "list", "--quiet"))
        .lines()
        .filter(line -> !line.isBlank())
        .toList();
  }

  /** The image references containerd's CRI namespace holds. */
  public List<String> images() throws IOException, InterruptedException {
    return ctr(List.of("-n", "k8s.io", "images", "list", "--quiet")).lines().toList();
  }

  private boolean answers() {
    try {
      return Files.exists(socket()) && ctr(List.of("version")).contains("Server");
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private String ctr(List<String> arguments) throws IOException, InterruptedException {
    return ctr(arguments, false);
  }

  private String ctr(List<String> arguments, boolean mayFail)
      throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(binaries.binary("ctr").toString(), "--address", socket().toString()));
    command.addAll(arguments);
    if (mayFail) {
      return HostCommands.attempt(command).output();
    }
    return HostCommands.run(command);
  }

  /** Kills every container (their shims outlive containerd), removes them, and stops containerd. */
  @Override
  public void close() {
    try {
      for (String task :
          ctr(List.of("-n", "k8s.io", "tasks", "list", "--quiet")).lines().toList()) {
        ctr(List.of("-n", "k8s.io", "tasks", "kill", "--signal", "SIGKILL", task.strip()), true);
        ctr(List.of("-n", "k8s.io", "tasks", "delete", "--force", task.strip()), true);
      }
    } catch (IOException e) {
      LOG.warn("cannot list the node's containers to stop them: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process.stop();
    ProcessHandle.allProcesses()
        .filter(
            p ->
                p.info().commandLine().orElse("").contains("containerd-shim")
                    && p.info().commandLine().orElse("").contains(socket().toString()))
        .forEach(ProcessHandle::destroyForcibly);
  }

  /** containerd's configuration (version 3, containerd 2.x). */
  static String config(UpstreamBinaries binaries, Path directory) {
    return """
        # containerd of a vNPU real node (vnpu real-node); every path is the node's own.
        version = 3
        root = '%1$s/root'
        state = '%1$s/state'
        # No drop-in files from /etc/containerd: this node is configured here only.
        imports = []

        [grpc]
          address = '%1$s/containerd.sock'

        [plugins]
          [plugins.'io.containerd.cri.v1.images']
            snapshotter = 'overlayfs'
            # The sandbox image is imported, never pulled; pinned, so that the kubelet's image
            # garbage collection keeps it.
            [plugins.'io.containerd.cri.v1.images'.pinned_images]
              sandbox = '%2$s'

          [plugins.'io.containerd.cri.v1.runtime']
            # CDI: the DRA driver's NodePrepareResources names CDI devices, which containerd
            # injects from the specs in this directory.
            enable_cdi = true
            cdi_spec_dirs = ['%1$s/cdi']
            # This VM withholds CAP_SYS_RESOURCE, so no process may lower its OOM score below
            # containerd's own; without this, runc fails every pod sandbox (the kubelet asks -998).
            restrict_oom_score_adj = true
            [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
              runtime_type = 'io.containerd.runc.v2'
              [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
                BinaryName = '%3$s'
                # cgroup v1 with the cgroupfs driver, as the kubelet is configured: no systemd here.
                SystemdCgroup = false
            [plugins.'io.containerd.cri.v1.runtime'.cni]
              bin_dirs = ['%4$s']
              conf_dir = '%1$s/cni'

          [plugins.'io.containerd.grpc.v1.cri']
            # kubectl exec and logs stream through the kubelet from here.
            stream_server_address = '127.0.0.1'
        """
        .formatted(directory, NodeImages.PAUSE, binaries.binary("runc"), binaries.cniPlugins());
  }

  /** The pod network: a bridge on the node, the node's pod subnet, routes through the bridge. */
  static String podNetwork(NodeNetwork network) {
    return """
        {
          "cniVersion": "1.0.0",
          "name": "vnpu-pods",
          "plugins": [
            {
              "type": "bridge",
              "bridge": "cni0",
              "isGateway": true,
              "ipMasq": false,
              "hairpinMode": true,
              "ipam": {
                "type": "host-local",
                "ranges": [[{"subnet": "%s"}]],
                "routes": [{"dst": "0.0.0.0/0"}]
              }
            },
            {"type": "portmap", "capabilities": {"portMappings": true}}
          ]
        }
        """
        .formatted(network.podSubnet());
  }
}
