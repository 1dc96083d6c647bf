package org.vnpu.cluster.node;

import java.io.PrintStream;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** The real-node scenario's checks: each one that holds is printed; the first that fails throws. */
final class Checks {

  private static final Duration POLL = Duration.ofMillis(500);

  private final PrintStream out;
  private int held;

  Checks(PrintStream out) {
    this.out = out;
  }

  void check(boolean holds, String what) {
    if (!holds) {
      throw new IllegalStateException("does not hold: " + what);
    }
    held++;
    out.println("  ✓ " + what);
  }

  /** Waits until {@code condition} holds; throws naming {@code what} after {@code timeout}. */
  void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "does not hold within " + timeout.toSeconds() + " s: " + what);
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  int held() {
    return held;
  }

  void say(String line) {
    out.println(line);
  }
}
