package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The flags and start-up errors of {@code vnpu exporter}; the exporter is tested in its module. */
class ExporterCommandTest {

  @Test
  void helpDocumentsEveryFlag() {
    Run run = Run.of("exporter", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains(
            "--node-name",
            "--listen",
            "0.0.0.0:9402",
            "--driver",
            "--inventory",
            "--dcmi-library",
            "--npu-smi",
            "--state-dir",
            "--poll-interval",
            "--verifying-keys",
            "--watch-all-pods",
            "--chip-catalog",
            "docs/metrics.md");
  }

  @TempDir Path dir;

  @Test
  void startUpProblemsAreNamedAndExitWithTwo() {
    Run noNode = Run.of("exporter", "--node-name", "");
    assertThat(noNode.exitCode()).isEqualTo(2);
    assertThat(noNode.err()).contains("--node-name is required (or set $NODE_NAME)");
    assertThat(Run.of("exporter", "--node-name", "n", "--listen", "localhost").err())
        .contains("--listen=localhost is not HOST:PORT with a port 0..65535");
    assertThat(Run.of("exporter", "--node-name", "n", "--verifying-keys", "/nonexistent").err())
        .contains("--verifying-keys /nonexistent is not a directory");
    assertThat(
            Run.of(
                    "exporter",
                    "--node-name",
                    "n",
                    "--verifying-keys",
                    dir.toString(),
                    "--inventory",
                    "/nonexistent.yaml")
                .err())
        .contains("/nonexistent.yaml: no such file");
  }
}
