package org.vnpu.api.codec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Compares a wire payload with its golden file under {@code src/test/resources/golden}. Run with
 * {@code -Dvnpu.golden.update=true} to rewrite the files on purpose.
 */
final class GoldenFile {

  private static final Path DIR = Path.of("src/test/resources/golden");

  private GoldenFile() {}

  static void assertMatches(String name, String actual) throws IOException {
    Path file = DIR.resolve(name);
    if (Boolean.getBoolean("vnpu.golden.update")) {
      Files.createDirectories(DIR);
      Files.writeString(file, actual + "\n", UTF_8);
    }
    assertThat(file)
        .as("golden file %s (regenerate with -Dvnpu.golden.update=true)", file)
        .exists();
    assertThat(actual).isEqualTo(Files.readString(file, UTF_8).stripTrailing());
  }

  static String read(String name) throws IOException {
    return Files.readString(DIR.resolve(name), UTF_8).stripTrailing();
  }
}
