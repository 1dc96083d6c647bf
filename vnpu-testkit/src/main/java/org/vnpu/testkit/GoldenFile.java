package org.vnpu.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Compares an output (a wire payload, a report) with its golden file under the calling module's
 * {@code src/test/resources/golden}. Run with {@code -Dvnpu.golden.update=true} to rewrite the
 * files on purpose.
 */
public final class GoldenFile {

  private static final Path DIR = Path.of("src/test/resources/golden");

  private GoldenFile() {}

  /**
   * Asserts that {@code actual} equals the golden file {@code name}, ignoring trailing white space.
   */
  public static void assertMatches(String name, String actual) throws IOException {
    Path file = DIR.resolve(name);
    if (Boolean.getBoolean("vnpu.golden.update")) {
      Files.createDirectories(DIR);
      Files.writeString(file, actual.stripTrailing() + "\n", UTF_8);
    }
    assertThat(file)
        .as("golden file %s (regenerate with -Dvnpu.golden.update=true)", file)
        .exists();
    assertThat(actual.stripTrailing()).isEqualTo(Files.readString(file, UTF_8).stripTrailing());
  }

  /** The golden file {@code name} without its final newline. */
  public static String read(String name) throws IOException {
    return Files.readString(DIR.resolve(name), UTF_8).stripTrailing();
  }
}
