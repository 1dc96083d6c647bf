package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @Test
  void aKubeconfigWhoseKeyCannotBeReadIsNamedWithoutAStackTrace(@TempDir Path dir)
      throws IOException {
    Path kubeconfig = dir.resolve("broken.kubeconfig");
    String garbage =
        Base64.getEncoder()
            .encodeToString(
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
                    .getBytes(StandardCharsets.US_ASCII));
    Files.writeString(
        kubeconfig,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]",
            "users: [{name: u, user: {client-certificate-data: "
                + garbage
                + ", client-key-data: "
                + garbage
                + "}}]",
            "contexts: [{name: x, context: {cluster: c, user: u}}]",
            "current-context: x",
            ""));

    Run run = Run.of("get", "nodes", "--kubeconfig", kubeconfig.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith("vnpu get: --kubeconfig " + kubeconfig + ": no client can be made from it")
        .doesNotContain("\tat ");
  }
}
