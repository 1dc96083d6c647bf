package org.vnpu.driver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a command and returns its standard output; a seam so that tests can feed fixtures. */
@FunctionalInterface
public interface CommandRunner {

  /**
   * The standard output of {@code command}.
   *
   * @throws DriverException when it cannot start, exits non-zero or takes too long
   */
  String run(List<String> command);

  /** Runs commands as child processes, each given {@code timeoutSeconds} to finish. */
  static CommandRunner processes(long timeoutSeconds) {
    return command -> {
      ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command));
      builder.redirectErrorStream(true);
      try {
        Process process = builder.start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          throw new DriverException(
              String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
        }
        String text = new String(output, StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
          throw new DriverException(
              String.join(" ", command)
                  + " exited with "
                  + process.exitValue()
                  + ": "
                  + text.strip());
        }
        return text;
      } catch (IOException e) {
        throw new DriverException(
            "cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new DriverException("interrupted while running " + String.join(" ", command), e);
      }
    };
  }
}
