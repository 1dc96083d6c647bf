package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Progress is redrawn on a terminal and written as a few plain lines everywhere else. */
class ProgressBarTest {

  private static final long SECOND = 1_000_000_000L;

  private final StringWriter written = new StringWriter();
  private final AtomicLong now = new AtomicLong(0);

  private ProgressBar bar(boolean terminal) {
    return new ProgressBar(new PrintWriter(written), 1, false, terminal, now::get);
  }

  @Test
  void elsewhereALineEveryFewSecondsAndTheLastOneWithoutCarriageReturns() {
    ProgressBar bar = bar(false);
    for (int done = 1; done <= 100; done++) {
      now.addAndGet(SECOND / 10); // 100 steps over 10 s
      bar.advanced("binpack", 42, done, 100);
    }
    bar.done();

    assertThat(written.toString())
        .doesNotContain("\r")
        .isEqualTo(
            "progress: 50% after 5s (binpack, seed 42)\n"
                + "progress: 100% after 10s (binpack, seed 42)\n");
  }

  @Test
  void onATerminalOneLineRedrawnInPlaceThenEnded() {
    ProgressBar bar = bar(true);
    bar.advanced("binpack", 42, 1, 2);
    bar.advanced("binpack", 42, 2, 2);
    bar.done();

    assertThat(written.toString())
        .startsWith("\r[" + "#".repeat(15) + " ".repeat(15) + "]  50%")
        .contains("\r[" + "#".repeat(30) + "] 100%")
        .endsWith("\n");
    assertThat(written.toString().indexOf('\n')).isEqualTo(written.toString().length() - 1);
  }
}
