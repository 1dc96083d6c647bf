package org.vnpu.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.sim.SimCluster;
import org.vnpu.sim.SimPod;

class ExperimentTest {

  private final SharingComparison example = SharingComparison.builtIn(ChipCatalog.builtIn());

  @Test
  void inflatesToTheTunedShareOfCapacityAndShufflesDeterministically() {
    Protocol protocol = new Protocol(1.3);
    long capacity = example.cluster().computePercent();

    List<SimPod> first = protocol.arrivals(example.workload(), capacity, 42);
    List<SimPod> again = protocol.arrivals(example.workload(), capacity, 42);
    List<SimPod> other = protocol.arrivals(example.workload(), capacity, 43);

    long total = first.stream().mapToLong(SimPod::computePercent).sum();
    assertThat(total)
        .isLessThanOrEqualTo((long) (1.3 * capacity))
        .isGreaterThan((long) (1.3 * capacity) - 800);
    for (SimPod original : example.workload()) {
      assertThat(first)
          .as("every original pod arrives")
          .anyMatch(arrival -> arrival.name().startsWith(original.name() + "#"));
    }
    assertThat(first.stream().map(SimPod::name).distinct()).hasSize(first.size());
    assertThat(again).isEqualTo(first);
    assertThat(other).isNotEqualTo(first);
  }

  @Test
  void everyPolicyGivesTheSameResultForTheSameSeed() {
    Experiment experiment = experiment(Contenders.names());

    List<RunResult> first = experiment.run(2, Progress.NONE);
    List<RunResult> second = experiment.run(1, Progress.NONE);

    assertThat(first).hasSize(Contenders.names().size());
    for (int i = 0; i < first.size(); i++) {
      assertThat(second.get(i).samples())
          .as(first.get(i).policy())
          .isEqualTo(first.get(i).samples());
    }
  }

  @Test
  void recordsArrivalsAllocationAndFailures() {
    RunResult run = experiment(List.of("binpack")).run(1, Progress.NONE).get(0);

    Sample last = run.last();
    assertThat(run.samples()).hasSize(last.arrivals());
    assertThat(last.arrivedPercent()).isGreaterThan(100);
    assertThat(last.allocatedPercent()).isBetween(50.0, 100.0);
    assertThat(last.failed()).isPositive();
    assertThat(run.unallocatedAt(100)).isBetween(0.0, 50.0);
    assertThat(run.unallocatedAt(500)).isNaN();
  }

  @Test
  void reportsProgressUpToTheLastArrival() {
    int[] last = new int[2];
    experiment(List.of("spread"))
        .run(
            1,
            (policy, seed, done, total) -> {
              last[0] = done;
              last[1] = total;
            });
    assertThat(last[0]).isEqualTo(last[1]).isPositive();
  }

  private Experiment experiment(List<String> policies) {
    SimCluster cluster = example.cluster();
    return new Experiment(
        cluster,
        example.workload(),
        WorkloadMix.typical(example.workload().stream().map(SimPod::shape).toList(), 0.95, 1),
        new Protocol(1.3),
        policies,
        List.of(7L),
        TieBreak.FIRST);
  }
}
