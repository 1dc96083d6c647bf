package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flags and start-up errors of {@code vnpu scheduler}; the scheduler is tested in its module.
 */
class SchedulerCommandTest {

  @TempDir Path dir;

  @Test
  void helpDocumentsEveryFlag() {
    Run run = Run.of("scheduler", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains(
            "--listen",
            "0.0.0.0:9401",
            "--signing-key-file",
            "--heartbeat-tolerance",
            "--lock-timeout",
            "--reservation-timeout",
            "--leader-election-namespace",
            "--identity",
            "--lease-duration",
            "--chip-catalog",
            "docs/scheduler.md");
  }

  @Test
  void startUpProblemsAreNamedAndExitWithTwo() throws IOException {
    Path key = Files.writeString(dir.resolve("key"), "short");
    Run shortKey = Run.of("scheduler", "--signing-key-file", key.toString());
    assertThat(shortKey.exitCode()).isEqualTo(2);
    assertThat(shortKey.err()).contains("allocation signing key has 5 bytes");
    assertThat(Run.of("scheduler", "--listen", "9401").err())
        .contains("--listen=9401 is not HOST:PORT");
  }
}
