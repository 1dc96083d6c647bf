package org.vnpu.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.vnpu.cluster.Component;
import org.vnpu.cluster.ControlPlane;
import org.vnpu.cluster.SourceTree;
import org.vnpu.cluster.UpstreamBinaries;
import org.vnpu.cluster.VolcanoComponents;
import org.vnpu.scheduler.VolcanoSchedulerConf;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code vnpu cluster up | down}: a real Kubernetes control plane on this machine, built from the
 * upstream Go modules (docs/real-cluster.md).
 */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description = {
      "Start or stop a real Kubernetes control plane on loopback: etcd, kube-apiserver,"
          + " kube-controller-manager, kube-scheduler and Volcano (scheduler and controller"
          + " manager), built from their upstream Go modules by upstream/build.sh (cached: a"
          + " second run only checks them). Needs Go 1.24+ and the Go module proxy for the first"
          + " build. Everything goes to one directory: certificates, kubeconfigs, logs, PIDs, etcd.",
      "`./vnpu demo --control-plane real` runs the demo's scenario on such a cluster."
    },
    subcommands = {ClusterCommand.Up.class, ClusterCommand.Down.class})
final class ClusterCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The cluster's directory option. */
  static final class Directory {
    @Option(
        names = "--dir",
        paramLabel = "DIR",
        defaultValue = "target/vnpu-cluster",
        description = "The cluster's directory (default: ${DEFAULT-VALUE}).")
    Path dir;
  }

  @Command(
      name = "up",
      mixinStandardHelpOptions = true,
      description =
          "Build (or find) the binaries, start the control plane and Volcano, print the"
              + " administrator's kubeconfig, and leave them running; `vnpu cluster down` stops"
              + " them.")
  static final class Up implements Callable<Integer> {
    @picocli.CommandLine.Mixin Directory directory;
    @Spec CommandSpec spec;

    @Override
    public Integer call() throws IOException, InterruptedException {
      if (Files.isDirectory(directory.dir.resolve("pids"))
          && Files.list(directory.dir.resolve("pids")).findAny().isPresent()) {
        throw new InputException(
            directory.dir
                + " holds a running cluster's PIDs: stop it first (vnpu cluster down --dir "
                + directory.dir
                + ")");
      }
      UpstreamBinaries binaries = UpstreamBinaries.build(SourceTree.find(Path.of("")));
      ControlPlane plane = ControlPlane.start(binaries, directory.dir);
      boolean started = false;
      try (KubernetesClient admin = ControlPlane.client(plane.adminKubeconfig())) {
        Path conf = directory.dir.resolve("volcano-scheduler.conf");
        Files.writeString(conf, VolcanoSchedulerConf.yaml(VolcanoSchedulerConf.volcanoDefault()));
        VolcanoComponents.start(plane, binaries, admin, conf);
        started = true;
      } finally {
        if (!started) {
          plane.close();
        }
      }
      PrintWriter out = spec.commandLine().getOut();
      out.printf("%s running in %s%n", binaries.versions(), directory.dir);
      out.printf("kubeconfig: %s%n", plane.adminKubeconfig());
      out.printf("logs: %s%n", plane.logs());
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "down",
      mixinStandardHelpOptions = true,
      description = "Stop every process of the cluster in --dir, by the PIDs it recorded.")
  static final class Down implements Callable<Integer> {
    @picocli.CommandLine.Mixin Directory directory;
    @Spec CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      List<String> stopped = Component.stopAll(directory.dir.resolve("pids"));
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          stopped.isEmpty()
              ? "nothing was running in " + directory.dir
              : "stopped " + String.join(", ", stopped));
      out.flush();
      return 0;
    }
  }
}
