package org.vnpu.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.vnpu.sim.experiment.Progress;

/**
 * Progress of long simulations on standard error: on a terminal a one-line bar redrawn in place;
 * elsewhere (a log, a pipe, CI) a plain line at most every {@link #LOG_EVERY}, as carriage-return
 * frames would fill a redirected stream with hundreds of partial lines.
 */
final class ProgressBar implements Progress {

  /** How often a line is written where the output is not a terminal. */
  static final Duration LOG_EVERY = Duration.ofSeconds(5);

  private static final int WIDTH = 30;

  private final PrintWriter err;
  private final int runs;
  private final boolean quiet;
  private final boolean terminal;
  private final LongSupplier nanoTime;
  private final Map<String, Double> fractions = new ConcurrentHashMap<>();
  private final long started;
  private long lastLine;

  /**
   * @param terminal whether {@code err} is a terminal ({@link Terminal#detect})
   * @param nanoTime the clock, {@link System#nanoTime} but in tests
   */
  ProgressBar(PrintWriter err, int runs, boolean quiet, boolean terminal, LongSupplier nanoTime) {
    this.err = err;
    this.runs = runs;
    this.quiet = quiet;
    this.terminal = terminal;
    this.nanoTime = nanoTime;
    this.started = nanoTime.getAsLong();
    this.lastLine = started;
  }

  @Override
  public synchronized void advanced(String policy, long seed, int done, int total) {
    fractions.put(policy + "/" + seed, done / (double) total);
    if (quiet) {
      return;
    }
    double overall = fractions.values().stream().mapToDouble(Double::doubleValue).sum() / runs;
    long now = nanoTime.getAsLong();
    long seconds = (now - started) / 1_000_000_000;
    if (terminal) {
      int filled = (int) Math.round(overall * WIDTH);
      err.printf(
          "\r[%s%s] %3d%%  %-22s seed %d  %ds",
          "#".repeat(filled),
          " ".repeat(WIDTH - filled),
          Math.round(overall * 100),
          policy,
          seed,
          seconds);
    } else if (now - lastLine >= LOG_EVERY.toNanos() || overall >= 1) {
      lastLine = now;
      err.printf(
          "progress: %d%% after %ds (%s, seed %d)%n",
          Math.round(overall * 100), seconds, policy, seed);
    } else {
      return;
    }
    err.flush();
  }

  /** Ends the bar's line on a terminal. */
  void done() {
    if (!quiet && terminal) {
      err.println();
      err.flush();
    }
  }
}
