package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end test: {@code vnpu demo --once} as a user runs it — API server, four simulated
 * nodes with the real device plugin and exporter, the real scheduler driven like Volcano, workloads
 * under the real shim — and every expectation of the scenario must hold.
 */
class DemoCommandTest {

  @TempDir Path directory;

  @Test
  void theScenarioHoldsEndToEnd() throws Exception {
    Run run = Run.of("demo", "--once", "--directory", directory.toString());

    assertThat(run.out())
        .as(run.out() + run.err() + componentsToRead())
        .contains("Every expectation held.")
        .doesNotContain("FAILED")
        .contains(
            "ok     rebalancing: whole-cards fits nowhere until 2 or 3 shared pods move, then runs"
                + " on 8 whole chips of one node")
        .contains("ok     rebalancing: the cluster is empty again for the next steps")
        .contains("ok     two pods on one chip get their fixed AI Core shares within 5 points")
        .contains("ok     a model larger than its 4 GiB quota is refused device memory")
        .contains("ok     no chip is promised more AI Core or memory than it has")
        .contains("ok     dra: a spread claim goes to the emptier DRA node (the extender ranks it)")
        .contains("ok     dra: the claim's container runs under the shim with the quarter's 16 GiB")
        .contains("Placement (one line per vNPU)")
        .contains("hard-slice: 0/6 nodes fit");
    assertThat(run.exitCode()).isZero();
    assertThat(directory.resolve("kubeconfig")).content().contains("server: \"http://127.0.0.1:");
    assertThat(Files.readString(directory.resolve("components.log")))
        .contains("device plugin for node a2-infer started");
  }

  /**
   * What of the components' log a failure needs, as the clone it ran in is gone: warnings, errors
   * and the placement of the DRA pods.
   */
  private String componentsToRead() throws IOException {
    Path log = directory.resolve("components.log");
    if (!Files.exists(log)) {
      return "";
    }
    try (Stream<String> lines = Files.lines(log)) {
      return lines
          .filter(
              line -> line.contains(" WARN ") || line.contains(" ERROR ") || line.contains("dra-"))
          .collect(Collectors.joining("\n", "\ncomponents.log, warnings and DRA pods:\n", "\n"));
    }
  }

  @Test
  void anUnknownSchedulerIsRefusedBeforeAnythingStarts() {
    Run run = Run.of("demo", "--scheduler", "yunikorn", "--directory", directory.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--scheduler yunikorn: must be volcano or kube-scheduler");
  }
}
