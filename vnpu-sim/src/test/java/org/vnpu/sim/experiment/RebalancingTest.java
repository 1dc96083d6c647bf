package org.vnpu.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.engine.Watermarks;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.sim.SimCluster;
import org.vnpu.sim.SimPod;
import org.vnpu.sim.input.ClusterFile;
import org.vnpu.sim.input.WorkloadFile;

/** Each engine policy runs twice, without and with rebalancing, over the same arrivals. */
class RebalancingTest {

  private static final ChipCatalog CATALOG = ChipCatalog.builtIn();
  private static final Rebalancing GENEROUS = new Rebalancing(100, new Watermarks(80, 50));

  @TempDir Path dir;

  @Test
  void aJobThatFitsNowhereRunsAfterASharedPodMoves() throws IOException {
    Map<String, RunResult> runs =
        run(
            "spread",
            GENEROUS,
            "  - {name: share, count: 2, vnpus: 1, cores: 30, memoryGiB: 8, cpuMilli: 1000, memoryMiB: 1024, arrival: 0}",
            "  - {name: job, count: 1, vnpus: 2, cpuMilli: 1000, memoryMiB: 1024, arrival: 1}");

    assertThat(runs.get("spread").last().failed()).isEqualTo(1);
    assertThat(runs.get("spread+rebalance").last().failed()).isZero();
    assertThat(runs.get("spread+rebalance").last().migrations()).isEqualTo(1);
    assertThat(runs.get("spread+rebalance").last().allocatedPercent())
        .isGreaterThan(runs.get("spread").last().allocatedPercent());
  }

  @Test
  void theBudgetBoundsTheMoves() throws IOException {
    Map<String, RunResult> runs =
        run(
            "spread",
            new Rebalancing(1, GENEROUS.marks()),
            "  - {name: share, count: 2, vnpus: 1, cores: 30, memoryGiB: 8, cpuMilli: 1000, memoryMiB: 1024, arrival: 0}",
            "  - {name: job, count: 1, vnpus: 2, cpuMilli: 1000, memoryMiB: 1024, arrival: 1}");

    assertThat(runs.get("spread+rebalance").last().migrations()).isZero();
    assertThat(runs.get("spread+rebalance").last().failed()).isEqualTo(1);
  }

  @Test
  void offlinePodsLeaveAHotNodeForACoolOne() throws IOException {
    Map<String, RunResult> runs =
        run(
            "binpack",
            GENEROUS,
            "  - {name: batch, count: 4, vnpus: 1, cores: 45, memoryGiB: 8, priority: offline,"
                + " cpuMilli: 1000, memoryMiB: 1024, arrival: 0}",
            "  - {name: web, count: 1, vnpus: 1, cores: 5, memoryGiB: 1, cpuMilli: 1000, memoryMiB: 1024, arrival: 1}");

    assertThat(runs.get("binpack").last().hottestNodePercent()).isEqualTo(92.5);
    RunResult rebalanced = runs.get("binpack+rebalance");
    assertThat(rebalanced.last().migrations()).isEqualTo(1);
    assertThat(rebalanced.last().hottestNodePercent()).isLessThanOrEqualTo(80);
    assertThat(rebalanced.last().coolestNodePercent()).isGreaterThan(0);
  }

  @Test
  void theHotSpotWorkloadOfTheBenchmarksRunsCoolerWithRebalancing() {
    Path docs = Path.of("..", "docs", "simulator");
    Map<String, RunResult> runs =
        runs(
            ClusterFile.read(docs.resolve("hot-spots-cluster.yaml"), CATALOG),
            WorkloadFile.read(docs.resolve("hot-spots-workload.yaml"), CATALOG),
            "fragmentation-aware",
            new Rebalancing(10, new Watermarks(80, 50)));

    RunResult plain = runs.get("fragmentation-aware");
    RunResult rebalanced = runs.get("fragmentation-aware+rebalance");
    assertThat(rebalanced.last().migrations()).isPositive();
    assertThat(rebalanced.meanHottestNodePercent()).isLessThan(plain.meanHottestNodePercent());
    assertThat(rebalanced.last().failed()).isEqualTo(plain.last().failed());
  }

  private Map<String, RunResult> run(String policy, Rebalancing rebalancing, String... pods)
      throws IOException {
    SimCluster cluster =
        ClusterFile.read(
            Files.writeString(
                dir.resolve("c.yaml"),
                "nodes:\n  - {name: n, count: 2, chipType: 910B3, chips: 2, cpuMilli: 64000,"
                    + " memoryMiB: 262144}\n"),
            CATALOG);
    List<SimPod> workload =
        WorkloadFile.read(
            Files.writeString(dir.resolve("w.yaml"), "pods:\n" + String.join("\n", pods) + "\n"),
            CATALOG);
    return runs(cluster, workload, policy, rebalancing);
  }

  /** The policy's plain and rebalanced runs over seed 1, by name. */
  private static Map<String, RunResult> runs(
      SimCluster cluster, List<SimPod> workload, String policy, Rebalancing rebalancing) {
    Experiment experiment =
        new Experiment(
            cluster,
            workload,
            WorkloadMix.typical(workload.stream().map(SimPod::shape).toList(), 0.95, 1),
            new Protocol(1.3),
            List.of(policy),
            List.of(1L),
            TieBreak.FIRST,
            rebalancing);
    assertThat(experiment.runs()).isEqualTo(2);
    return experiment.run(1, Progress.NONE).stream()
        .collect(Collectors.toMap(RunResult::policy, Function.identity()));
  }
}
