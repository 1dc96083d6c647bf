package org.vnpu.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the throughput benchmark reports of its rows, and the options it refuses. */
class ThroughputReportTest {

  private static ThroughputRow row(String id) {
    return ThroughputRow.all().stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow();
  }

  private static RowFigures figures(
      String id, int bound, double seconds, Map<String, Integer> extender, String problem) {
    return new RowFigures(
        row(id),
        100,
        bound,
        seconds,
        Map.of("bind", new RowFigures.Verb(100, 3.0, 9.5)),
        extender,
        Map.of("create bindings", 100),
        Map.of("kube-apiserver", 4.0),
        2,
        10,
        row(id).extended() ? 8 : null,
        problem);
  }

  @Test
  void aRowIsComparedWithItsSchedulersAnchorAndItsEventsAreCountedApart() {
    RowFigures anchor = figures("a", 100, 2.0, Map.of(), null);
    RowFigures extended =
        figures(
            "b1",
            100,
            4.0,
            Map.of("patch nodes", 100, "create bindings", 100, "create events", 50, "get nodes", 7),
            null);

    assertThat(extended.extenderWritesPerPod()).isEqualTo(2.0);
    assertThat(extended.eventsPerPod()).isEqualTo(0.5);
    assertThat(extended.extenderRequestsPerPod()).isEqualTo(2.57);
    String tables =
        new ThroughputReport(
                10,
                100,
                20,
                10,
                1000,
                "16 x 910B3",
                "v",
                List.of(anchor, extended),
                new StandInFigures(3, Duration.ofSeconds(12), Duration.ofMillis(1_400)))
            .markdown();
    assertThat(tables)
        .startsWith(
            "10 nodes of 16 x 910B3, 100 pods per row, each row after 20 placed unmeasured,"
                + " Volcano finding 10 % of the nodes per task, kube-scheduler's client (rows a) at"
                + " 1000 requests/s;")
        .contains(
            "The nodes' stand-ins: 3 writes failed; the longest a Lease went unrenewed, 12 s"
                + " (nodes are marked unreachable after 50 s); the longest a bound pod's lock entry"
                + " waited for its release, 1.4 s.")
        .contains(
            "| a | kube-scheduler alone, one huawei.com/Ascend910 | 100 / 100 | 2.0 s | 50.0 | anchor |")
        .contains("| 25.0 | 0.50 | 2.00 (+ 0.50) |")
        .contains("| 10 (8) |")
        .contains("| b1 | – | – | 100, 3.0 / 9.5 |");
  }

  @Test
  void aRowThatLeftPodsUnboundIsAProblem() {
    ThroughputReport report =
        new ThroughputReport(
            10,
            100,
            0,
            0,
            0,
            "16 x 910B3",
            "v",
            List.of(figures("c", 60, 9.0, Map.of(), "40 of 100 pods were still unbound")),
            new StandInFigures(0, Duration.ZERO, Duration.ZERO));

    assertThat(report.problems()).containsExactly("c: 40 of 100 pods were still unbound");
  }

  @Test
  void optionsNameTheFieldAndTheRule() {
    assertThatThrownBy(() -> options(0, 0, Set.of(), "910B3", 0))
        .hasMessage("nodes is 0; it must be at least 1");
    assertThatThrownBy(() -> options(10, 0, Set.of("e"), "910B3", 0))
        .hasMessageStartingWith("row e is not one of [a, b1, b2, b3, b4, c, d1, d2, d3, d4]");
    assertThatThrownBy(() -> options(10, 0, Set.of(), "H100", 0))
        .hasMessageStartingWith("chip type H100 is not in the catalog");
    assertThatThrownBy(() -> options(10, -1, Set.of(), "910B3", 0))
        .hasMessage("warmUp is -1; it must be 0 or more");
    assertThatThrownBy(() -> options(10, 0, Set.of(), "910B3", 101))
        .hasMessageStartingWith(
            "volcanoShareOfNodes is 101; as Volcano's --percentage-nodes-to-find it must be a"
                + " percentage of the nodes, 1 to 100, or 0");
    assertThatThrownBy(() -> options(10, 0, Set.of(), "910B3", -5))
        .hasMessageStartingWith("volcanoShareOfNodes is -5;");
    assertThat(options(10, 0, Set.of(), "910B3", 10).volcanoShareOfNodes()).isEqualTo(10);
  }

  @Test
  void anAnchorRowWithMorePodsThanTheNodesHaveChipsIsRefusedBeforeTheClusterStarts() {
    // 100 pods of a whole chip each on 5 nodes of 16 chips: 20 would wait for the stall.
    assertThatThrownBy(() -> options(5, 0, Set.of("a", "b1"), "910B3", 0))
        .hasMessage(
            "pods is 100; rows [a] give each pod a whole chip, and 5 nodes of 16 chips"
                + " have 80: ask for at most 80 pods, more nodes, or leave those rows out");
    assertThatThrownBy(() -> options(10, 200, Set.of(), "910B3", 0))
        .hasMessageStartingWith("warmUp is 200; rows [a, c] give each pod a whole chip");
    assertThat(options(5, 0, Set.of("b1", "d4"), "910B3", 0).pods())
        .as("vNPU pods share chips")
        .isEqualTo(100);
  }

  @Test
  void theAnchorsClientLimitIsRequestsASecondOrZeroForKubeSchedulersOwn() {
    assertThatThrownBy(() -> withQps(-1))
        .hasMessage(
            "kubeSchedulerQps is -1; as kube-scheduler's --kube-api-qps it must be requests a"
                + " second, or 0 for its default (50)");
    assertThat(withQps(0).kubeSchedulerQps()).isZero();
    assertThat(withQps(1000).kubeSchedulerQps()).isEqualTo(1000);
  }

  private static ThroughputBenchmark.Options withQps(int qps) {
    return new ThroughputBenchmark.Options(
        Path.of("dir"),
        List.of("vnpu"),
        10,
        100,
        0,
        16,
        "910B3",
        Set.of(),
        42,
        Duration.ofMinutes(2),
        0,
        qps);
  }

  private static ThroughputBenchmark.Options options(
      int nodes, int warmUp, Set<String> rows, String chip, int shareOfNodes) {
    return new ThroughputBenchmark.Options(
        Path.of("dir"),
        List.of("vnpu"),
        nodes,
        100,
        warmUp,
        16,
        chip,
        rows,
        42,
        Duration.ofMinutes(2),
        shareOfNodes,
        0);
  }
}
