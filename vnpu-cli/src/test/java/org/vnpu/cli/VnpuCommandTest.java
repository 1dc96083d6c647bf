package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VnpuCommandTest {

  @Test
  void helpListsEveryCommandOnOneLine() {
    Run run = Run.of("--help");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .containsPattern("(?m)^  chips +Print the chip catalog\\.$")
        .containsPattern("(?m)^  validate-pod +Check the vNPU requests of Pod manifests\\.$");
  }

  @Test
  void withoutCommandPrintsUsage() {
    Run run = Run.of();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).startsWith("Usage: vnpu");
  }

  @Test
  void unknownCommandIsUsageError() {
    Run run = Run.of("simulat");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Unmatched argument at index 0: 'simulat'");
  }
}
