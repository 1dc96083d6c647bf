package org.vnpu.cluster.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Short commands the node runs on this host (ip, mknod, umount, ctr, ldd): their output or why not.
 */
final class HostCommands {

  private HostCommands() {}

  /**
   * Runs {@code command} and returns what it wrote to standard output; its standard error is kept
   * apart (ctr, for one, warns there on every call that cgroup v1 is deprecated).
   *
   * @throws IOException naming the command and its messages when it exits non-zero
   */
  static String run(List<String> command) throws IOException, InterruptedException {
    Result result = attempt(command);
    if (result.exit() != 0) {
      throw new IOException(
          String.join(" ", command) + " failed (exit " + result.exit() + "): " + result.errors());
    }
    return result.output();
  }

  /** Runs {@code command} whatever its exit code. */
  static Result attempt(List<String> command) throws IOException, InterruptedException {
    Path errors = Files.createTempFile("vnpu-command", ".err");
    try {
      Process process = new ProcessBuilder(command).redirectError(errors.toFile()).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int exit = process.waitFor();
      return new Result(exit, output, Files.readString(errors).strip());
    } finally {
      Files.deleteIfExists(errors);
    }
  }

  /** A command's exit code, standard output and standard error. */
  record Result(int exit, String output, String errors) {}
}
