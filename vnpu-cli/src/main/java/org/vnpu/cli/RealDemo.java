package org.vnpu.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.vnpu.cluster.Agreement;
import org.vnpu.cluster.RealCluster;
import org.vnpu.cluster.RealClusterChecks;
import org.vnpu.sandbox.DemoCluster;
import org.vnpu.sandbox.Sandbox;
import org.vnpu.sandbox.SandboxNode;
import org.vnpu.sandbox.SandboxOptions;
import org.vnpu.sandbox.Scenario;

/**
 * {@code vnpu demo --control-plane real}: the demo's scenario on a real control plane (docs/real-
 * cluster.md), then the operator's commands against it ({@link OperatorCommandChecks}) and what
 * only a real cluster shows ({@link RealClusterChecks}).
 */
final class RealDemo {

  /**
   * The demo's rebalancer as chart values (DemoCluster.REBALANCING): it carries plans out, for pods
   * pending 3 s, a pass a second, and may move 3 pods of one owner and node per pass.
   */
  static final Map<String, Object> VALUES =
      Map.of(
          "rebalancer.mode", "execute",
          "rebalancer.interval", "1s",
          "rebalancer.pendingFor", "3s",
          "rebalancer.evictionsPerNode", 3,
          "rebalancer.evictionsPerOwner", 3);

  private final Path root;
  private final Sandbox.Driver driver;
  private final int burst;
  private final long seed;
  private final boolean once;
  private final boolean compare;

  /**
   * @param compare run the same scenario on the embedded sandbox first (same nodes, seed and
   *     scheduler), and print where the two agree ({@link Agreement})
   */
  RealDemo(Path root, Sandbox.Driver driver, int burst, long seed, boolean once, boolean compare) {
    this.root = root;
    this.driver = driver;
    this.burst = burst;
    this.seed = seed;
    this.once = once;
    this.compare = compare;
  }

  int run(Path log, PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
    Consumer<String> progress =
        line -> {
          out.println(line);
          out.flush();
        };
    Scenario.Report embedded = null;
    if (compare) {
      try {
        embedded = embedded(out, progress);
      } catch (IOException | RuntimeException e) {
        err.println("vnpu demo: the scenario on the embedded sandbox failed: " + e.getMessage());
        err.println("  component log: " + log);
        return 2;
      }
    }
    out.println(
        "vNPU demo on a real control plane: building or finding the upstream binaries, starting"
            + " etcd, kube-apiserver, kube-controller-manager, kube-scheduler and Volcano, installing"
            + " the chart, starting 4 nodes, in "
            + root);
    out.flush();
    RealCluster cluster;
    try {
      cluster =
          RealCluster.start(
              new RealCluster.Options(
                  root.resolve("cluster"),
                  driver,
                  vnpuCommand(),
                  DemoCluster.NODES,
                  List.of(),
                  VALUES));
    } catch (IOException | RuntimeException e) {
      err.println("vnpu demo: the real cluster did not start: " + e.getMessage());
      err.println("  component log: " + log);
      return 2;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "vnpu-real-cluster-stop"));
    try {
      printCluster(out, cluster, log);
      Scenario.Report all = scenario(cluster, out, progress, embedded);
      DemoText.report(out, all);
      if (!once) {
        out.println();
        out.println("Serving until Ctrl-C; look inside with the kubeconfig above.");
        out.flush();
        Thread.currentThread().join();
      }
      return all.passed() ? 0 : 1;
    } finally {
      if (once) {
        cluster.close();
      }
    }
  }

  /** The scenario on the embedded sandbox, for the agreement table. */
  private Scenario.Report embedded(PrintWriter out, Consumer<String> progress)
      throws IOException, InterruptedException {
    out.println("The scenario on the embedded sandbox first, for the agreement table:");
    out.flush();
    try (Sandbox sandbox =
        Sandbox.start(
            new SandboxOptions(root.resolve("embedded"), driver, DemoCluster.NODES)
                .withRebalancing(DemoCluster.REBALANCING))) {
      Scenario.Report embedded = new Scenario(sandbox, progress, burst, seed).run();
      out.println();
      return embedded;
    }
  }

  /**
   * The scenario and the real cluster's own checks, with the agreement table when {@code embedded}
   * is there to compare with.
   */
  private Scenario.Report scenario(
      RealCluster cluster, PrintWriter out, Consumer<String> progress, Scenario.Report embedded)
      throws IOException, InterruptedException {
    Scenario.Report report = new Scenario(cluster, progress, burst, seed).run();
    if (embedded != null) {
      String table = Agreement.markdown(Agreement.of(embedded, report));
      Files.writeString(root.resolve("agreement.md"), table);
      out.println();
      out.println("Embedded against real, pod by pod (" + root.resolve("agreement.md") + ")");
      out.print(table);
    }
    List<Scenario.Check> checks = new ArrayList<>(report.checks());
    checks.addAll(new OperatorCommandChecks(cluster, progress).run());
    checks.addAll(new RealClusterChecks(cluster, progress).run());
    if (driver == Sandbox.Driver.KUBE_SCHEDULER) {
      checks.addAll(dra(out, progress));
    } else {
      progress.accept(
          "[dra] (DRA claims are placed by kube-scheduler: --scheduler kube-scheduler)");
    }
    Scenario.Report all =
        new Scenario.Report(report.placements(), report.unfit(), report.comparison(), checks);
    return all;
  }

  /**
   * The demo's DRA step on a real control plane of its own: the chart with {@code dra.enabled}
   * deploys the DRA driver instead of the device plugin, so its nodes are two DRA nodes, and
   * kube-scheduler's DynamicResources plugin allocates the claims the extender ranks.
   */
  private List<Scenario.Check> dra(PrintWriter out, Consumer<String> progress)
      throws IOException, InterruptedException {
    Path directory = root.resolve("dra");
    progress.accept(
        "[dra] a second real control plane, the chart with dra.enabled and two DRA nodes, in "
            + directory);
    try (RealCluster cluster =
        RealCluster.start(
            new RealCluster.Options(
                directory, driver, vnpuCommand(), List.of(), DemoCluster.DRA_NODES, Map.of()))) {
      List<Scenario.Check> checks =
          new ArrayList<>(new Scenario(cluster, progress, burst, seed).runClaims());
      checks.add(RealClusterChecks.noRefusals(cluster));
      return checks;
    } catch (IOException | RuntimeException e) {
      out.println("vnpu demo: the DRA cluster failed: " + e.getMessage());
      return List.of(
          new Scenario.Check(
              "dra: claims on a real control plane with the chart's dra.enabled",
              false,
              String.valueOf(e.getMessage())));
    }
  }

  /** How the scheduler replicas run: this JVM's java, its class path and the {@code vnpu} main. */
  static List<String> vnpuCommand() {
    String java = ProcessHandle.current().info().command().orElse("java");
    return List.of(java, "-cp", System.getProperty("java.class.path"), VnpuCommand.class.getName());
  }

  private static void printCluster(PrintWriter out, RealCluster cluster, Path log)
      throws IOException {
    out.println();
    out.println("  upstream     " + cluster.binaries().versions());
    out.println("  API server   " + cluster.plane().server());
    out.println("  kubeconfig   " + cluster.plane().adminKubeconfig() + "   (system:masters)");
    out.println("  scheduler    " + cluster.schedulerUrl() + "   (the leader, through its proxy)");
    out.println("  logs         " + cluster.plane().logs() + ", components " + log);
    for (SandboxNode node : cluster.nodes()) {
      out.println("  node         " + node.name() + "   " + node.metricsUrl());
    }
    out.println();
    out.flush();
  }
}
