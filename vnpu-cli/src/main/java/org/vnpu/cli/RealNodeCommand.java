package org.vnpu.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.vnpu.cluster.node.RealNodeScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vnpu real-node}: vNPU on a real kubelet, containerd and runc on this machine. */
@Command(
    name = "real-node",
    mixinStandardHelpOptions = true,
    description = {
      "Run vNPU on a real node on this machine: the real control plane (as `vnpu cluster up`), and"
          + " one node with the kubelet, containerd 2, runc and kube-proxy built from their"
          + " upstream Go modules, in a network namespace of its own with fake Ascend chips. The"
          + " chart is installed with Helm and its DaemonSets and scheduler Deployment run as pods"
          + " from vNPU's image, built here by Jib; Volcano schedules vNPU pods, whose containers"
          + " run the workload under the shim.",
      "Needs root (network namespaces, device nodes, mounts), Go and the Go module proxy for the"
          + " first build, iptables, busybox-static, libseccomp-dev and pkg-config"
          + " (docs/sandbox.md, real node). Prints each check; exit code 1 when one does not hold."
    })
final class RealNodeCommand implements Callable<Integer> {

  @Option(
      names = "--directory",
      defaultValue = "target/real-node",
      description =
          "Where everything goes (removed first): DIR/cluster (control plane, node, logs),"
              + " DIR/images (default: ${DEFAULT-VALUE}).")
  Path directory;

  @Option(
      names = "--keep",
      description = "Leave everything running after the checks, also when one fails, until Ctrl-C.")
  boolean keep;

  @Override
  public Integer call() throws IOException, InterruptedException {
    ClusterDirectory.fresh(directory.resolve("cluster"));
    PrintStream out = System.out;
    int exit = 0;
    try (RealNodeScenario scenario = new RealNodeScenario(directory, out)) {
      // Ctrl-C at any point stops what started and removes the node's namespace and mounts.
      Runtime.getRuntime().addShutdownHook(new Thread(scenario::shutdown));
      try {
        scenario.run();
      } catch (IOException | RuntimeException e) {
        System.err.println("vnpu real-node: " + e.getMessage());
        System.err.println("  logs: " + directory.resolve("cluster/logs"));
        exit = 1;
      }
      if (keep) {
        out.println(
            "running; the admin kubeconfig is "
                + directory.resolve("cluster/kubeconfigs/admin.kubeconfig")
                + "; Ctrl-C stops it all");
        new CountDownLatch(1).await();
      }
    }
    return exit;
  }
}
