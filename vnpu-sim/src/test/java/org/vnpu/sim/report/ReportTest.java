package org.vnpu.sim.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.sim.experiment.RunResult;
import org.vnpu.sim.experiment.Sample;

class ReportTest {

  @TempDir Path dir;

  private final List<RunResult> runs =
      List.of(
          run("paper-bestfit", 42, 93.0), run("paper-bestfit", 43, 91.0), run("binpack", 42, 95.0));

  @Test
  void spreadIsMeanSampleSdAndRange() {
    Spread spread = Spread.of(List.of(1.0, 2.0, 3.0, Double.NaN));
    assertThat(spread.mean()).isEqualTo(2.0);
    assertThat(spread.sd()).isCloseTo(1.0, within(1e-12));
    assertThat(spread.covers(3.0)).isTrue();
    assertThat(spread.covers(3.1)).isFalse();
    assertThat(spread.n()).isEqualTo(3);
  }

  @Test
  void summarisesPerPolicyBesideThePapersFigure() throws IOException {
    Files.writeString(
        dir.resolve(PaperResults.FILE),
        "workload,sc_policy,tune,seed,total_gpus,99,100\n"
            + "openb_pod_list_default,05-BestFit,1.3,42,6212,90,92.5\n"
            + "openb_pod_list_default,05-BestFit,1.3,43,6212,90,93.5\n");

    Summary summary = Summary.of(runs, "openb_pod_list_default", PaperResults.read(dir));

    Summary.Row bestFit = summary.rows().get(0);
    assertThat(bestFit.unallocated().mean()).isCloseTo(8.0, within(1e-9));
    assertThat(bestFit.paper().mean()).isCloseTo(7.0, within(1e-9));
    assertThat(bestFit.withinPaperRange()).isFalse();
    assertThat(summary.rows().get(1).paper()).isNull();
    assertThat(summary.best().orElseThrow().policy()).isEqualTo("binpack");
  }

  @Test
  void writesOneCsvRowPerArrivalAndAPlot() throws IOException {
    Path csv = dir.resolve("runs.csv");
    Path png = dir.resolve("runs.png");

    CsvReport.write(csv, runs);
    PlotReport.write(
        png,
        "test",
        runs,
        new PlotReport.Reference("published", new double[] {Double.NaN, 12.0, 11.0}));

    List<String> lines = Files.readAllLines(csv);
    assertThat(lines.get(0)).isEqualTo(CsvReport.HEADER);
    assertThat(lines).hasSize(1 + 3 * 2);
    assertThat(lines.get(2))
        .isEqualTo("paper-bestfit,42,2,100.000,93.000,7.000,1.500,1,0,100.000,50.000");
    assertThat(Files.readAllBytes(png)).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
  }

  private static RunResult run(String policy, long seed, double allocatedAt100) {
    return new RunResult(
        policy,
        seed,
        List.of(
            new Sample(1, 60, 60, 2, 0, 0, 60, 60),
            new Sample(2, 100, allocatedAt100, 1.5, 1, 0, 100, 50)),
        10);
  }
}
