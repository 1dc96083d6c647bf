package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RebalanceCommandTest {

  @Test
  void refusesToRunWithoutDryRunBecauseOnlyTheSchedulersLeaderEvicts() {
    Run run = Run.of("rebalance");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Missing required option: '--dry-run'");
  }

  @Test
  void refusesWatermarksOutOfOrderNamingBothOptions() {
    Run run =
        Run.of(
            "rebalance",
            "--dry-run",
            "--rebalance-high-water",
            "40",
            "--rebalance-low-water",
            "60");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "vnpu rebalance: --rebalance-high-water and --rebalance-low-water: watermarks must"
                + " satisfy 0 <= low < high <= 100, got low 60.0, high 40.0\n");
  }

  @Test
  void refusesEvictionLimitsBelowOne() {
    Run run = Run.of("rebalance", "--dry-run", "--rebalance-evictions-per-node", "0");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("must be at least 1, got 0 (use --rebalancer-mode off");
  }

  @Test
  void helpExplainsWhatItReadsAndThatItChangesNothing() {
    Run run = Run.of("rebalance", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("changes nothing")
        .contains("--rebalance-evictions-per-owner")
        .contains("docs/rebalancing.md");
  }
}
