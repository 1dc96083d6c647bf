package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code deploy/kubectl-vnpu} hands kubectl's arguments to vnpu, or says what it lacks. */
class KubectlPluginTest {

  private static final Path PLUGIN = Path.of("../deploy/kubectl-vnpu").toAbsolutePath();

  @TempDir Path bin;

  private record Result(int exitCode, String out, String err) {}

  @Test
  void runsTheVnpuCommandOnThePathWithKubectlsArguments() throws Exception {
    Path vnpu = bin.resolve("vnpu");
    Files.writeString(vnpu, "#!/bin/sh\necho \"vnpu $*\"\n");
    assertThat(vnpu.toFile().setExecutable(true)).isTrue();

    Result result = run(Map.of("PATH", bin + ":/usr/bin:/bin"), "get", "nodes", "-o", "json");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEqualTo("vnpu get nodes -o json\n");
  }

  @Test
  void withoutVnpuOrItsJarItSaysWhereItLookedAndHowToPointIt() throws Exception {
    Result result =
        run(
            Map.of("PATH", "/usr/bin:/bin", "VNPU_JAR", bin.resolve("none.jar").toString()),
            "get",
            "nodes");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains("no vnpu command on PATH and no jar at " + bin.resolve("none.jar"))
        .contains("set VNPU_JAR");
  }

  private Result run(Map<String, String> environment, String... args)
      throws IOException, InterruptedException {
    String[] command = new String[args.length + 1];
    command[0] = PLUGIN.toString();
    System.arraycopy(args, 0, command, 1, args.length);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().clear();
    builder.environment().putAll(environment);
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new Result(process.exitValue(), out, err);
  }
}
