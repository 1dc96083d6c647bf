package org.vnpu.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine decides over the ledger, never the other way round: no class of a lower package names
 * a higher one (docs/architecture.md), so the packages form no cycle.
 */
class PackageDependencyTest {

  private static final Path SOURCES = Path.of("src/main/java/org/vnpu/core");

  @Test
  void theLedgerDoesNotDependOnTheEngine() throws IOException {
    assertThat(importsOf("ledger", "org.vnpu.core.engine")).isEmpty();
  }

  /** The files of package {@code name} that import from {@code other}. */
  private static List<Path> importsOf(String name, String other) throws IOException {
    try (Stream<Path> files = Files.walk(SOURCES.resolve(name))) {
      return files
          .filter(file -> file.toString().endsWith(".java"))
          .filter(
              file -> {
                try {
                  return Files.readAllLines(file).stream()
                      .anyMatch(line -> line.startsWith("import " + other + "."));
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .toList();
    }
  }
}
