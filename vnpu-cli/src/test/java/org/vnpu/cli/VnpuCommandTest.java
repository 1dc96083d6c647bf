package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
  void everyCommandsHelpRendersWithoutWarnings() {
    PrintStream original = System.err;
    ByteArrayOutputStream warnings = new ByteArrayOutputStream(); // picocli warns on System.err
    System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
    try {
      for (String command : VnpuCommand.commandLine().getSubcommands().keySet()) {
        Run run = Run.of(command, "--help");
        assertThat(run.exitCode()).as(command).isZero();
        assertThat(run.out()).as(command).startsWith("Usage: vnpu " + command);
        assertThat(run.err()).as(command).isEmpty();
      }
    } finally {
      System.setErr(original);
    }
    assertThat(warnings.toString(StandardCharsets.UTF_8)).isEmpty();
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
