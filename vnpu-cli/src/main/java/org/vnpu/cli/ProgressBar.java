package org.vnpu.cli;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.vnpu.sim.experiment.Progress;

/** A one-line progress bar on standard error for long simulations. */
final class ProgressBar implements Progress {

  private static final int WIDTH = 30;

  private final PrintWriter err;
  private final int runs;
  private final boolean quiet;
  private final Map<String, Double> fractions = new ConcurrentHashMap<>();
  private final long started = System.nanoTime();

  ProgressBar(PrintWriter err, int runs, boolean quiet) {
    this.err = err;
    this.runs = runs;
    this.quiet = quiet;
  }

  @Override
  public synchronized void advanced(String policy, long seed, int done, int total) {
    fractions.put(policy + "/" + seed, done / (double) total);
    if (quiet) {
      return;
    }
    double overall = fractions.values().stream().mapToDouble(Double::doubleValue).sum() / runs;
    int filled = (int) Math.round(overall * WIDTH);
    err.printf(
        "\r[%s%s] %3d%%  %-22s seed %d  %ds",
        "#".repeat(filled),
        " ".repeat(WIDTH - filled),
        Math.round(overall * 100),
        policy,
        seed,
        (System.nanoTime() - started) / 1_000_000_000);
    err.flush();
  }

  void done() {
    if (!quiet) {
      err.println();
      err.flush();
    }
  }
}
