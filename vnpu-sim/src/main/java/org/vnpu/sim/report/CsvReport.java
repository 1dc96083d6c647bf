package org.vnpu.sim.report;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.vnpu.sim.experiment.RunResult;
import org.vnpu.sim.experiment.Sample;

/** One CSV row per arrival of every run. */
public final class CsvReport {

  public static final String HEADER =
      "policy,seed,arrivals,arrived_pct,allocated_pct,unallocated_pct,fragmentation_pct,failed_pods,"
          + "migrations,hottest_node_pct,coolest_node_pct";

  private CsvReport() {}

  public static void write(Path file, List<RunResult> results) throws IOException {
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
      out.println(HEADER);
      for (RunResult run : results) {
        for (Sample s : run.samples()) {
          out.println(
              String.format(
                  Locale.ROOT,
                  "%s,%d,%d,%.3f,%.3f,%.3f,%.3f,%d,%d,%.3f,%.3f",
                  run.policy(),
                  run.seed(),
                  s.arrivals(),
                  s.arrivedPercent(),
                  s.allocatedPercent(),
                  100 - s.allocatedPercent(),
                  s.fragmentationPercent(),
                  s.failed(),
                  s.migrations(),
                  s.hottestNodePercent(),
                  s.coolestNodePercent()));
        }
      }
    }
  }
}
