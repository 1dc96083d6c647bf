package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The flags and start-up errors of {@code vnpu scheduler}; the scheduler is tested in its module.
 */
class SchedulerCommandTest {

  @Test
  void helpDocumentsEveryFlag() {
    Run run = Run.of("scheduler", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains(
            "--listen",
            "0.0.0.0:9401",
            "--keys-namespace",
            "--signing-secret",
            "--verifying-keys",
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
  void startUpProblemsAreNamedAndExitWithTwo() {
    Run noNamespace = Run.of("scheduler", "--keys-namespace", "");
    assertThat(noNamespace.exitCode()).isEqualTo(2);
    assertThat(noNamespace.err())
        .contains(
            "--keys-namespace is required (or $POD_NAMESPACE): the signing key lives in a Secret");
    assertThat(Run.of("scheduler", "--listen", "9401").err())
        .contains("--listen=9401 is not HOST:PORT");
  }
}
