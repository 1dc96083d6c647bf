package org.vnpu.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.engine.Watermarks;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.sim.SimCluster;
import org.vnpu.sim.SimPod;
import org.vnpu.sim.baseline.Baselines;
import org.vnpu.sim.experiment.Contenders;
import org.vnpu.sim.experiment.Experiment;
import org.vnpu.sim.experiment.Protocol;
import org.vnpu.sim.experiment.Rebalancing;
import org.vnpu.sim.experiment.RunResult;
import org.vnpu.sim.experiment.SharingComparison;
import org.vnpu.sim.experiment.TieBreak;
import org.vnpu.sim.input.ClusterFile;
import org.vnpu.sim.input.OpenbTrace;
import org.vnpu.sim.input.WorkloadFile;
import org.vnpu.sim.report.CsvReport;
import org.vnpu.sim.report.PaperResults;
import org.vnpu.sim.report.PlotReport;
import org.vnpu.sim.report.Summary;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vnpu simulate}: replays a cluster and a workload through the engine. */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    footerHeading = "%nExamples:%n",
    footer = {
      "  vnpu simulate",
      "  vnpu simulate --cluster cluster.yaml --workload workload.yaml --seeds 1..5",
      "  vnpu simulate --openb-nodes openb_node_list_gpu_node.csv \\",
      "                --openb-pods openb_pod_list_default.csv --plot default.png",
      "  vnpu simulate --openb-nodes ... --openb-pods ... --policies fragmentation-aware \\",
      "                --rebalance --migration-budget 2",
      "",
      "Formats, protocol and policies: docs/simulator.md."
    },
    description = {
      "Compare placement policies on a simulated cluster.",
      "Without inputs it simulates a built-in Ascend example and shows what vNPU sharing gains over"
          + " whole-card allocation. With a cluster and a workload (our YAML, or the Alibaba openb"
          + " trace) it follows the FGD paper's protocol: inflate the workload to --tune × capacity"
          + " by sampling with replacement, shuffle, let pods arrive one by one, and report the"
          + " unallocated compute at arrived = 100 %% per policy over --seeds."
    })
final class SimulateCommand implements Callable<Integer> {

  @ArgGroup(exclusive = true)
  Inputs inputs;

  static final class Inputs {
    @ArgGroup(exclusive = false)
    Yaml yaml;

    @ArgGroup(exclusive = false)
    Openb openb;

    /** A cluster, its workload and the workload's name, as the files give them. */
    record Read(SimCluster cluster, List<SimPod> workload, String name) {}

    /** Reads the openb trace or the YAML files, whichever were given. */
    Read read(ChipCatalog chips) throws IOException {
      if (openb != null) {
        return new Read(
            OpenbTrace.nodes(openb.nodes),
            OpenbTrace.pods(openb.pods),
            openb.pods.getFileName().toString().replaceFirst("\\.csv$", ""));
      }
      return new Read(
          ClusterFile.read(yaml.cluster, chips),
          WorkloadFile.read(yaml.workload, chips),
          yaml.workload.getFileName().toString());
    }
  }

  static final class Yaml {
    @Option(
        names = "--cluster",
        required = true,
        paramLabel = "FILE",
        description = "Cluster YAML (node groups).")
    Path cluster;

    @Option(
        names = "--workload",
        required = true,
        paramLabel = "FILE",
        description = "Workload YAML (pod shapes with counts).")
    Path workload;
  }

  static final class Openb {
    @Option(
        names = "--openb-nodes",
        required = true,
        paramLabel = "CSV",
        description = "openb node list, e.g. openb_node_list_gpu_node.csv.")
    Path nodes;

    @Option(
        names = "--openb-pods",
        required = true,
        paramLabel = "CSV",
        description = "openb pod list, e.g. openb_pod_list_default.csv.")
    Path pods;
  }

  @Option(
      names = "--tune",
      defaultValue = "1.3",
      paramLabel = "X",
      description = "Inflate the workload to X × cluster compute (default: ${DEFAULT-VALUE}).")
  double tune;

  @Option(
      names = "--seeds",
      defaultValue = "42..51",
      converter = SeedRange.class,
      paramLabel = "SEEDS",
      description = "Seeds, a range 42..51 or a list 42,43 (default: ${DEFAULT-VALUE}).")
  List<Long> seeds;

  @Option(
      names = "--policies",
      split = ",",
      paramLabel = "LIST",
      description = "Policies to compare (default: all): ${COMPLETION-CANDIDATES}.",
      completionCandidates = PolicyNames.class)
  List<String> policies;

  @Option(
      names = "--tie-break",
      defaultValue = "first",
      paramLabel = "HOW",
      description =
          "How the paper's baselines choose among equal scores: first (node order) or random"
              + " (default: ${DEFAULT-VALUE}).")
  TieBreak tieBreak;

  @Option(
      names = "--paper-results",
      paramLabel = "DIR",
      description =
          "Directory of the FGD paper's analysis_allo_discrete.csv (default: ../fgd-expected beside the openb pod list, when present).")
  Path paperResults;

  @Option(
      names = "--rebalance",
      description =
          "Also run each engine policy with rebalancing (as <policy>+rebalance): when a pod fits"
              + " nowhere, move up to 3 running pods so that it fits; with departures, move offline"
              + " pods off nodes above --high-water to nodes below --low-water.")
  boolean rebalance;

  @Option(
      names = "--migration-budget",
      defaultValue = "2",
      paramLabel = "N",
      description = "Moves allowed per 100 arrivals when rebalancing (default: ${DEFAULT-VALUE}).")
  int migrationBudget;

  @Option(
      names = "--high-water",
      defaultValue = "80",
      paramLabel = "PERCENT",
      description =
          "A node whose allocated AI Core is above this runs hot (default: ${DEFAULT-VALUE}).")
  double highWater;

  @Option(
      names = "--low-water",
      defaultValue = "50",
      paramLabel = "PERCENT",
      description =
          "A node below this may take offline pods off hot nodes (default: ${DEFAULT-VALUE}).")
  double lowWater;

  @Option(
      names = "--csv",
      paramLabel = "FILE",
      description = "Write one row per arrival of every run.")
  Path csv;

  @Option(
      names = "--plot",
      paramLabel = "PNG",
      description = "Plot unallocated against arrived compute, one line per policy.")
  Path plot;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description = "Runs in parallel (default: the number of processors).")
  Integer threads;

  @Option(
      names = {"-q", "--quiet"},
      description = "No progress bar.")
  boolean quiet;

  @Mixin CatalogOption catalog;

  @Mixin OutputOption output;

  @Spec CommandSpec spec;

  static final class PolicyNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return Contenders.names().iterator();
    }
  }

  @Override
  public Integer call() throws IOException {
    ChipCatalog chips = catalog.load();
    if (inputs == null) {
      return builtInExample(chips);
    }
    List<String> chosen = policies == null ? Contenders.names() : policies;
    for (String policy : chosen) {
      if (!Contenders.names().contains(policy)) {
        throw new InputException(
            "policy " + policy + " is unknown; known: " + String.join(", ", Contenders.names()));
      }
    }
    Rebalancing rebalancing = rebalancing();
    Inputs.Read read = inputs.read(chips);
    SimCluster cluster = read.cluster();
    List<SimPod> workload = read.workload();
    String workloadName = read.name();
    Experiment experiment =
        new Experiment(
            cluster,
            workload,
            WorkloadMix.typical(workload.stream().map(SimPod::shape).toList(), 0.95, 1),
            new Protocol(tune),
            chosen,
            seeds,
            tieBreak,
            rebalancing);
    ProgressBar bar =
        new ProgressBar(
            spec.commandLine().getErr(),
            experiment.runs(),
            quiet,
            Terminal.detect().attached(),
            System::nanoTime);
    List<RunResult> results =
        experiment.run(threads == null ? Runtime.getRuntime().availableProcessors() : threads, bar);
    bar.done();
    PaperResults paper = paper(workloadName);
    Summary summary = Summary.of(results, workloadName, paper);
    writeFiles(workloadName, results, paper);
    PrintWriter out = spec.commandLine().getOut();
    out.print(
        output.render(summary, s -> SimulationText.summary(s, cluster, results, seeds, tune)));
    out.flush();
    return 0;
  }

  /** The CSV of every sample and the plot, where asked for. */
  private void writeFiles(String workloadName, List<RunResult> results, PaperResults paper)
      throws IOException {
    if (csv != null) {
      CsvReport.write(csv, results);
    }
    if (plot != null) {
      PlotReport.write(
          plot,
          "Unallocated compute — " + workloadName,
          results,
          paper == null
              ? null
              : paper
                  .meanUnallocated(workloadName, Baselines.FGD.paperName())
                  .map(curve -> new PlotReport.Reference("paper's FGD (published mean)", curve))
                  .orElse(null));
    }
  }

  private Rebalancing rebalancing() {
    if (!rebalance) {
      return null;
    }
    if (migrationBudget < 1) {
      throw new InputException(
          "--migration-budget " + migrationBudget + " must be at least 1 move per 100 arrivals");
    }
    try {
      return new Rebalancing(migrationBudget, new Watermarks(highWater, lowWater));
    } catch (IllegalArgumentException e) {
      throw new InputException("--high-water and --low-water: " + e.getMessage());
    }
  }

  private PaperResults paper(String workloadName) {
    Path dir = paperResults;
    if (dir == null && inputs.openb != null) {
      Path sibling = inputs.openb.pods.toAbsolutePath().getParent().resolveSibling("fgd-expected");
      dir = Files.exists(sibling.resolve(PaperResults.FILE)) ? sibling : null;
    }
    if (dir == null) {
      return null;
    }
    PaperResults results = PaperResults.read(dir);
    return results.knows(workloadName) ? results : null;
  }

  private int builtInExample(ChipCatalog chips) {
    SharingComparison comparison = SharingComparison.builtIn(chips);
    SharingComparison.Result result = comparison.run(PlacementPolicy.FRAGMENTATION_AWARE);
    PrintWriter out = spec.commandLine().getOut();
    out.print(output.render(result, r -> SimulationText.sharing(comparison, r)));
    out.flush();
    return 0;
  }
}
