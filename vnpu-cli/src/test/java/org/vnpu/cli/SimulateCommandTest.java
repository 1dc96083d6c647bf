package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulateCommandTest {

  @TempDir Path dir;

  @Test
  void withoutInputsShowsWhatSharingGainsOnTheBuiltInExample() {
    Run run = Run.of("simulate");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .startsWith("Built-in example: 8 nodes, 64 chips")
        .containsPattern("(?m)^vNPU sharing +\\d+ / 199 ")
        .containsPattern("(?m)^whole cards only +\\d+ / 199 ")
        .contains("Sharing places");
  }

  @Test
  void comparesPoliciesOnOpenbFilesBesideThePapersFigures() throws IOException {
    Path openb = Files.createDirectories(dir.resolve("bench/openb"));
    Path expected = Files.createDirectories(dir.resolve("bench/fgd-expected"));
    Path nodes =
        Files.writeString(
            openb.resolve("nodes.csv"),
            "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,T4\nn1,64000,262144,2,T4\n");
    Path pods =
        Files.writeString(
            openb.resolve("openb_pod_list_tiny.csv"),
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1024,1,500\np1,1000,1024,1,700\np2,1000,1024,1,1000\np3,1000,1024,0,0\n");
    Files.writeString(
        expected.resolve("analysis_allo_discrete.csv"),
        "workload,sc_policy,tune,seed,total_gpus,100\nopenb_pod_list_tiny,05-BestFit,1.3,42,4,80\n");
    Path csv = dir.resolve("runs.csv");
    Path png = dir.resolve("plot.png");

    Run run =
        Run.of(
            "simulate",
            "--openb-nodes",
            nodes.toString(),
            "--openb-pods",
            pods.toString(),
            "--seeds",
            "42,43",
            "--policies",
            "binpack,paper-bestfit",
            "--csv",
            csv.toString(),
            "--plot",
            png.toString(),
            "-q");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .startsWith("2 nodes, 4 chips;")
        .containsPattern("(?m)^binpack +\\S+ ± \\S+ % +- +- ")
        .containsPattern("(?m)^paper-bestfit +\\S+ ± \\S+ % +20.00 ± 0.00 % +(yes|no) ");
    assertThat(Files.readAllLines(csv).get(0)).startsWith("policy,seed,arrivals");
    assertThat(png).exists();
  }

  @Test
  void printsTheSummaryAsJson() throws IOException {
    Path cluster =
        Files.writeString(
            dir.resolve("c.yaml"),
            "nodes:\n  - {name: a, count: 1, chipType: 910B3, chips: 2, cpuMilli: 64000, memoryMiB: 262144}\n");
    Path workload =
        Files.writeString(
            dir.resolve("w.yaml"),
            "pods:\n  - {name: p, count: 9, vnpus: 1, cores: 30, memoryGiB: 8, cpuMilli: 1000, memoryMiB: 1024}\n");

    Run run =
        Run.of(
            "simulate",
            "--cluster",
            cluster.toString(),
            "--workload",
            workload.toString(),
            "--seeds",
            "1",
            "--policies",
            "spread",
            "-o",
            "json",
            "-q");

    JsonNode rows = new ObjectMapper().readTree(run.out()).path("rows");
    assertThat(rows.get(0).path("policy").asText()).isEqualTo("spread");
    assertThat(rows.get(0).path("unallocated").path("n").asInt()).isEqualTo(1);
  }

  @Test
  void rebalancingRunsBesideThePlainPolicyAndCountsItsMigrations() throws IOException {
    Path cluster =
        Files.writeString(
            dir.resolve("c.yaml"),
            "nodes:\n  - {name: a, count: 2, chipType: 910B3, chips: 2, cpuMilli: 64000, memoryMiB: 262144}\n");
    Path workload =
        Files.writeString(
            dir.resolve("w.yaml"),
            "pods:\n"
                + "  - {name: share, count: 2, vnpus: 1, cores: 30, memoryGiB: 8, cpuMilli: 1000, memoryMiB: 1024, arrival: 0}\n"
                + "  - {name: job, count: 1, vnpus: 2, cpuMilli: 1000, memoryMiB: 1024, arrival: 1}\n");

    List<String> args =
        List.of(
            "simulate",
            "--cluster",
            cluster.toString(),
            "--workload",
            workload.toString(),
            "--seeds",
            "1",
            "--policies",
            "spread",
            "--rebalance",
            "--migration-budget",
            "100",
            "-q");
    Run text = Run.of(args.toArray(String[]::new));
    Run run = Run.of(Stream.concat(args.stream(), Stream.of("-o", "json")).toArray(String[]::new));

    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out())
        .containsPattern("(?m)^spread\\+rebalance .* 1 +\\S+ +\\d+ % / \\d+ % ")
        .contains("never reach 100 % of the cluster's compute");
    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode rows = new ObjectMapper().readTree(run.out()).path("rows");
    assertThat(rows.get(0).path("policy").asText()).isEqualTo("spread");
    assertThat(rows.get(0).path("migrations").path("mean").asDouble()).isZero();
    assertThat(rows.get(1).path("policy").asText()).isEqualTo("spread+rebalance");
    assertThat(rows.get(1).path("migrations").path("mean").asDouble()).isEqualTo(1.0);
    assertThat(rows.get(1).path("failedPods").path("mean").asDouble()).isZero();
  }

  @Test
  void refusesWatermarksOutOfOrder() {
    Run run =
        Run.of(
            "simulate",
            "--rebalance",
            "--high-water",
            "40",
            "--low-water",
            "60",
            "--cluster",
            "c.yaml",
            "--workload",
            "w.yaml");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "vnpu simulate: --high-water and --low-water: watermarks must satisfy 0 <= low < high"
                + " <= 100, got low 60.0, high 40.0\n");
  }

  @Test
  void refusesUnknownPolicyListingTheKnownOnes() throws IOException {
    Path cluster =
        Files.writeString(
            dir.resolve("c.yaml"),
            "nodes:\n  - {name: a, count: 1, chipType: 910B3, chips: 2, cpuMilli: 1, memoryMiB: 1}\n");
    Path workload =
        Files.writeString(
            dir.resolve("w.yaml"),
            "pods:\n  - {name: p, count: 1, vnpus: 1, cpuMilli: 0, memoryMiB: 0}\n");

    Run run =
        Run.of(
            "simulate",
            "--cluster",
            cluster.toString(),
            "--workload",
            workload.toString(),
            "--policies",
            "tetris");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith(
            "vnpu simulate: policy tetris is unknown; known: binpack, spread, fragmentation-aware, paper-random,");
  }

  @Test
  void refusesMissingInputFile() {
    Run run = Run.of("simulate", "--openb-nodes", "no/nodes.csv", "--openb-pods", "no/pods.csv");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("vnpu simulate: no/nodes.csv: no such file\n");
  }

  @Test
  void refusesBadSeedList() {
    Run run = Run.of("simulate", "--seeds", "51..42");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("'51..42' is not a seed list; use a range like 42..51 or a list like 42,43");
  }
}
