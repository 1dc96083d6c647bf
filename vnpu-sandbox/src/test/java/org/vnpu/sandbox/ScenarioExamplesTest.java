package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class ScenarioExamplesTest {

  @Test
  void everyExamplePodHasAnExpectationInTheDemo() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("../deploy/examples"))) {
      assertThat(
              files
                  .map(file -> file.getFileName().toString())
                  .filter(
                      name -> name.endsWith(".yaml") && !name.equals("simulated-inventory.yaml"))
                  .map(name -> name.substring(0, name.length() - ".yaml".length())))
          .containsExactlyInAnyOrderElementsOf(ExamplesStep.EXAMPLES.keySet());
    }
  }
}
