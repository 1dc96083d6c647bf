package org.vnpu.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipModel;
import org.vnpu.sandbox.Sandbox;

/**
 * How much scheduling throughput the vNPU extender costs on a real control plane (issue 45,
 * docs/benchmarks.md): the same nodes and the same number of pods, placed by kube-scheduler and by
 * Volcano alone (the anchors) and with the extender in their path. One real cluster serves every
 * row: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, Volcano, the chart, one
 * {@code vnpu scheduler} and the chart's kube-scheduler, and {@link BenchNodes} without kubelets.
 */
public final class ThroughputBenchmark {

  /**
   * How a benchmark runs.
   *
   * @param directory where the cluster goes
   * @param vnpu the command that runs {@code vnpu}
   * @param nodes how many nodes
   * @param pods pods per row
   * @param warmUp pods each row places first, unmeasured (0: none)
   * @param chipsPerNode chips of each node
   * @param chipType the chips' catalog name
   * @param rows the rows to run by id ({@code a}, {@code b1}, ...); empty: all
   * @param seed the mix's sizes are drawn with it
   * @param stall a row ends, broken, when no pod bound for this long
   * @param volcanoShareOfNodes Volcano's {@code --percentage-nodes-to-find}, for rows c and d alike
   *     ({@link VolcanoComponents#VOLCANOS_SHARE_OF_NODES}: Volcano's own)
   */
  public record Options(
      Path directory,
      List<String> vnpu,
      int nodes,
      int pods,
      int warmUp,
      int chipsPerNode,
      String chipType,
      Set<String> rows,
      long seed,
      Duration stall,
      int volcanoShareOfNodes,
      int kubeSchedulerQps) {
    public Options {
      vnpu = List.copyOf(vnpu);
      rows = Set.copyOf(rows);
      positive("nodes", nodes);
      positive("pods", pods);
      if (warmUp < 0) {
        throw new IllegalArgumentException("warmUp is " + warmUp + "; it must be 0 or more");
      }
      positive("chipsPerNode", chipsPerNode);
      VolcanoComponents.checkShareOfNodes("volcanoShareOfNodes", volcanoShareOfNodes);
      RealCluster.Options.checkKubeSchedulerQps("kubeSchedulerQps", kubeSchedulerQps);
      if (ChipCatalog.builtIn().find(chipType).isEmpty()) {
        throw new IllegalArgumentException(
            "chip type " + chipType + " is not in the catalog: " + ChipCatalog.builtIn().names());
      }
      Set<String> known = Set.copyOf(ThroughputRow.all().stream().map(ThroughputRow::id).toList());
      for (String row : rows) {
        if (!known.contains(row)) {
          throw new IllegalArgumentException(
              "row " + row + " is not one of " + new java.util.TreeSet<>(known));
        }
      }
      List<ThroughputRow> chosen = selected(rows);
      checkAnchorsFit("pods", pods, nodes, chipsPerNode, chosen);
      checkAnchorsFit("warmUp", warmUp, nodes, chipsPerNode, chosen);
    }

    /**
     * Each pod of an anchor row takes a whole chip: more pods than the nodes have chips would leave
     * the rest unbound, and the row would end broken only after its stall.
     */
    private static void checkAnchorsFit(
        String field, int pods, int nodes, int chipsPerNode, List<ThroughputRow> selected) {
      long chips = (long) nodes * chipsPerNode;
      List<String> anchors =
          selected.stream().filter(row -> !row.extended()).map(ThroughputRow::id).toList();
      if (!anchors.isEmpty() && pods > chips) {
        throw new IllegalArgumentException(
            field
                + " is "
                + pods
                + "; rows "
                + anchors
                + " give each pod a whole chip, and "
                + nodes
                + " nodes of "
                + chipsPerNode
                + " chips have "
                + chips
                + ": ask for at most "
                + chips
                + " pods, more nodes, or leave those rows out");
      }
    }

    private static void positive(String field, int value) {
      if (value < 1) {
        throw new IllegalArgumentException(field + " is " + value + "; it must be at least 1");
      }
    }

    /** The rows to run, in their order. */
    List<ThroughputRow> selected() {
      return selected(rows);
    }

    private static List<ThroughputRow> selected(Set<String> rows) {
      return ThroughputRow.all().stream()
          .filter(row -> rows.isEmpty() || rows.contains(row.id()))
          .toList();
    }
  }

  private ThroughputBenchmark() {}

  /** Starts the cluster, runs every selected row, stops it all, and answers what each measured. */
  public static ThroughputReport run(Options options, Consumer<String> progress)
      throws IOException, InterruptedException {
    ChipModel model = ChipCatalog.builtIn().find(options.chipType()).orElseThrow();
    progress.accept("starting the real control plane, Volcano, the chart and the vNPU scheduler");
    try (RealCluster cluster =
        RealCluster.start(
            new RealCluster.Options(
                options.directory(),
                Sandbox.Driver.VOLCANO,
                options.vnpu(),
                List.of(),
                List.of(),
                Map.of(),
                1,
                options.volcanoShareOfNodes(),
                options.kubeSchedulerQps()))) {
      // Ctrl-C stops every process the cluster started, as the end of the run does.
      Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "vnpu-throughput-stop"));
      progress.accept(
          "registering "
              + options.nodes()
              + " nodes of "
              + options.chipsPerNode()
              + " x "
              + model.name());
      KubernetesClient devicePlugin = cluster.componentClient("device-plugin");
      try (BenchNodes nodes =
              BenchNodes.register(
                  cluster.client(), devicePlugin, options.nodes(), model, options.chipsPerNode());
          BenchAdmissions admissions =
              new BenchAdmissions(cluster.client(), devicePlugin, Set.copyOf(nodes.names()))) {
        ThroughputRun runner =
            new ThroughputRun(
                cluster.client(),
                cluster.plane(),
                cluster.schedulerUrl(),
                progress,
                options.stall());
        List<RowFigures> rows = runRows(runner, options, progress);
        return new ThroughputReport(
            options.nodes(),
            options.pods(),
            options.warmUp(),
            options.volcanoShareOfNodes(),
            options.kubeSchedulerQps(),
            options.chipsPerNode() + " x " + model.name(),
            cluster.binaries().versions(),
            rows,
            new StandInFigures(
                nodes.heartbeatFailures() + admissions.failures(),
                nodes.longestLeaseGap(),
                admissions.longestRelease()));
      }
    }
  }

  /** Runs each selected row, after its warm-up, in order. */
  private static List<RowFigures> runRows(
      ThroughputRun runner, Options options, Consumer<String> progress)
      throws IOException, InterruptedException {
    List<RowFigures> rows = new ArrayList<>();
    for (ThroughputRow row : options.selected()) {
      if (options.warmUp() > 0) {
        // A long-running extender is warm: its JVM has compiled its path, which the first row
        // with vNPU pods would otherwise pay for (in b1's first 40 s at 100 nodes the JIT's
        // compiler threads took 15 % of the machine, the whole JVM 37 %). Every row gets the same.
        progress.accept(row.id() + ": warming up with " + options.warmUp() + " pods");
        runner.warmUp(row, options.warmUp(), options.seed());
      }
      progress.accept(row.id() + ": " + row.description() + ", " + options.pods() + " pods");
      RowFigures figures = runner.run(row, options.pods(), options.seed());
      progress.accept(ThroughputReport.summary(figures));
      rows.add(figures);
    }
    return rows;
  }
}
