package org.vnpu.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.core.input.InvalidInputException;
import org.vnpu.sim.SimCluster;
import org.vnpu.sim.SimPod;
import org.vnpu.sim.input.ClusterFile;
import org.vnpu.sim.input.WorkloadFile;

class TimedWorkloadTest {

  private static final ChipCatalog CATALOG = ChipCatalog.builtIn();

  @TempDir Path dir;

  @Test
  void replaysArrivalsInTimeOrderWithoutInflating() throws IOException {
    List<SimPod> pods =
        WorkloadFile.read(
            write("late: {arrival: 20, departure: 30}", "early: {arrival: 0, departure: 10}"),
            CATALOG);

    List<SimPod> arrivals = new Protocol(1.3).arrivals(pods, 100, 42);

    assertThat(arrivals).extracting(SimPod::name).containsExactly("early-0#0", "late-0#1");
    assertThat(arrivals.get(0).timing()).isEqualTo(new SimPod.Timing(0, 10.0));
  }

  @Test
  void departedPodsGiveTheirChipsBack() throws IOException {
    SimCluster cluster =
        ClusterFile.read(
            Files.writeString(
                dir.resolve("c.yaml"),
                "nodes:\n  - {name: n, count: 1, chipType: 910B3, chips: 1, cpuMilli: 64000, memoryMiB: 262144}\n"),
            CATALOG);
    List<SimPod> pods =
        WorkloadFile.read(
            write(
                "first: {arrival: 0, departure: 10}",
                "blocked: {arrival: 5}",
                "after: {arrival: 20}"),
            CATALOG);
    Experiment experiment =
        new Experiment(
            cluster,
            pods,
            WorkloadMix.typical(pods.stream().map(SimPod::shape).toList(), 0.95, 1),
            new Protocol(1.3),
            List.of("binpack"),
            List.of(1L),
            TieBreak.FIRST);

    RunResult run = experiment.run(1, Progress.NONE).get(0);

    assertThat(run.samples()).extracting(Sample::failed).containsExactly(0, 1, 1);
    assertThat(run.samples())
        .extracting(Sample::allocatedPercent)
        .containsExactly(100.0, 100.0, 100.0);
  }

  @Test
  void refusesWorkloadWithTimesOnSomeShapesOnly() throws IOException {
    Path file = write("a: {arrival: 0}", "b: {}");
    assertThatThrownBy(() -> WorkloadFile.read(file, CATALOG))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            file + ": 1 of 2 pod shapes have an arrival time; give every shape one, or none");
  }

  @Test
  void refusesDepartureBeforeArrival() throws IOException {
    Path file = write("a: {arrival: 10, departure: 5}");
    assertThatThrownBy(() -> WorkloadFile.read(file, CATALOG))
        .hasMessage(
            file + ": pod a: arrival 10.0 and departure 5.0 must satisfy 0 ≤ arrival < departure");
  }

  /** A workload of whole-card pods, one per line: {@code name: {arrival: .., departure: ..}}. */
  private Path write(String... shapes) throws IOException {
    StringBuilder yaml = new StringBuilder("pods:\n");
    for (String shape : shapes) {
      String name = shape.substring(0, shape.indexOf(':'));
      String times = shape.substring(shape.indexOf('{') + 1, shape.lastIndexOf('}')).strip();
      yaml.append("  - {name: ")
          .append(name)
          .append(", count: 1, vnpus: 1, cpuMilli: 1000, memoryMiB: 1024")
          .append(times.isEmpty() ? "" : ", " + times)
          .append("}\n");
    }
    return Files.writeString(dir.resolve("w.yaml"), yaml.toString());
  }
}
