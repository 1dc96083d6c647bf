package org.vnpu.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.vnpu.cluster.ThroughputBenchmark;
import org.vnpu.cluster.ThroughputReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vnpu throughput}: the scheduling throughput benchmark on a real control plane. */
@Command(
    name = "throughput",
    mixinStandardHelpOptions = true,
    description = {
      "Measure how much scheduling throughput the vNPU extender costs, on a real control plane"
          + " built from upstream (as `vnpu demo --control-plane real`): nodes without kubelets"
          + " whose vNPU inventory the node publisher writes and whose Leases a heartbeat renews,"
          + " then per row as many pods created at once, timed from the first create to the last"
          + " binding.",
      "Rows: a = kube-scheduler alone, c = Volcano alone (pods ask for one whole chip,"
          + " huawei.com/Ascend910); b1..b4 = kube-scheduler with the extender, d1..d4 = Volcano"
          + " with it (1: one shape binpack, 2: one shape fragmentation-aware, 3: a mix binpack,"
          + " 4: a mix fragmentation-aware).",
      "Prints pods/s against the anchor, the extender's verbs p50/p99, API requests per pod from"
          + " the audit log, and each process's CPU seconds; writes the same tables to"
          + " DIR/throughput.md. Exit code 1 when a row left pods unbound (never for a time)."
    })
final class ThroughputCommand implements Callable<Integer> {

  @Option(
      names = "--nodes",
      defaultValue = "100",
      description = "Nodes (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--pods",
      defaultValue = "1000",
      description = "Pods per row (default: ${DEFAULT-VALUE}).")
  int pods;

  @Option(
      names = "--warm-up",
      defaultValue = "200",
      paramLabel = "PODS",
      description =
          "Pods each row places first, in a namespace of their own, unmeasured: the extender's"
              + " JVM compiles its path and every scheduler's caches fill, as in a cluster that has"
              + " been running (default: ${DEFAULT-VALUE}; 0 for none).")
  int warmUp;

  @Option(
      names = "--chips-per-node",
      defaultValue = "16",
      description =
          "Chips of each node (default: ${DEFAULT-VALUE}, so that a row's whole-chip pods fit on"
              + " 100 nodes).")
  int chipsPerNode;

  @Option(
      names = "--chip-type",
      defaultValue = "910B3",
      description = "The nodes' chip type, from the catalog (default: ${DEFAULT-VALUE}).")
  String chipType;

  @Option(
      names = "--rows",
      split = ",",
      paramLabel = "ROW",
      description = "Rows to run, e.g. a,b1,b3 (default: all ten).")
  Set<String> rows = Set.of();

  @Option(names = "--seed", defaultValue = "42", description = "Seed of the mix (default: 42).")
  long seed;

  @Option(
      names = "--stall",
      defaultValue = "2m",
      converter = DurationConverter.class,
      description =
          "A row ends, reported broken, when no pod bound for this long (default:"
              + " ${DEFAULT-VALUE}).")
  Duration stall;

  @Option(
      names = "--volcano-percentage-nodes-to-find",
      defaultValue = "0",
      paramLabel = "PERCENT",
      description =
          "Volcano's --percentage-nodes-to-find, for rows c and d alike: for each pod its allocate"
              + " action asks the predicates of nodes in turn until this share of them pass, then"
              + " scores those; with the vNPU extender each node asked is one predicate call. 0"
              + " leaves it to Volcano: 50 less one per 125 nodes, at least 5 %% and 100 nodes"
              + " (default: ${DEFAULT-VALUE}).")
  int volcanoShareOfNodes;

  @Option(
      names = "--kube-scheduler-qps",
      defaultValue = "0",
      paramLabel = "QPS",
      description =
          "The client limit of the kube-scheduler that schedules rows a, in requests a second"
              + " (its --kube-api-qps, and as large a burst). 0 leaves kube-scheduler's default,"
              + " 50 a second with a burst of 100: row a makes one Binding per pod, so it binds"
              + " at most about 50 pods/s however fast the machine, while the vNPU extender binds"
              + " rows b with a client of its own (default: ${DEFAULT-VALUE}).")
  int kubeSchedulerQps;

  @Option(
      names = "--directory",
      defaultValue = "target/vnpu-throughput",
      description =
          "Where the cluster (DIR/cluster, removed first: every run starts from an empty etcd)"
              + " and the report go (default: ${DEFAULT-VALUE}).")
  Path directory;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    ThroughputBenchmark.Options options;
    try {
      options =
          new ThroughputBenchmark.Options(
              directory.resolve("cluster"),
              RealDemo.vnpuCommand(),
              nodes,
              pods,
              warmUp,
              chipsPerNode,
              chipType,
              rows,
              seed,
              stall,
              volcanoShareOfNodes,
              kubeSchedulerQps);
    } catch (IllegalArgumentException e) {
      throw new InputException(e.getMessage());
    }
    ClusterDirectory.fresh(directory.resolve("cluster"));
    // The nodes' stand-ins release a lock entry per pod; the progress lines say what matters.
    System.setProperty("org.slf4j.simpleLogger.log.org.vnpu.kube.NodeLocks", "warn");
    ThroughputReport report;
    try {
      report =
          ThroughputBenchmark.run(
              options,
              line -> {
                out.println(line);
                out.flush();
              });
    } catch (IOException | RuntimeException e) {
      PrintWriter err = spec.commandLine().getErr();
      err.println("vnpu throughput: the benchmark's cluster failed: " + e.getMessage());
      err.println("  the components' logs: " + directory.resolve("cluster").resolve("logs"));
      err.flush();
      return 2;
    }
    String tables = report.markdown();
    Files.createDirectories(directory);
    Files.writeString(directory.resolve("throughput.md"), tables);
    out.println();
    out.print(tables);
    out.println("written to " + directory.resolve("throughput.md"));
    List<String> problems = report.problems();
    problems.forEach(problem -> out.println("BROKEN " + problem));
    out.flush();
    return problems.isEmpty() ? 0 : 1;
  }
}
