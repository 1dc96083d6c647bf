package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every example pod in deploy/examples is valid and means what its file says. */
class ExamplePodsTest {

  private static final Path EXAMPLES = Path.of("../deploy/examples");

  @Test
  void everyExamplePodIsValid() throws IOException {
    List<Path> pods;
    try (Stream<Path> files = Files.list(EXAMPLES)) {
      pods =
          files
              .filter(f -> f.toString().endsWith(".yaml"))
              .filter(f -> !f.getFileName().toString().equals("simulated-inventory.yaml"))
              .sorted()
              .toList();
    }
    assertThat(pods).hasSizeGreaterThanOrEqualTo(12);
    for (Path pod : pods) {
      Run run = Run.of("validate-pod", pod.toString());
      assertThat(run.exitCode()).as("%s: %s", pod, run.out()).isZero();
    }
  }

  @Test
  void examplesMeanWhatTheirNamesSay() {
    assertThat(Run.of("validate-pod", EXAMPLES.resolve("memory-only.yaml").toString()).out())
        .containsPattern("main +1 +share +0% +4 GiB +best-effort");
    assertThat(Run.of("validate-pod", EXAMPLES.resolve("hard-slice.yaml").toString()).out())
        .contains("mode hard, AI CPU level low");
    assertThat(Run.of("validate-pod", EXAMPLES.resolve("multi-chip.yaml").toString()).out())
        .containsPattern("main +8 +whole card");
    assertThat(Run.of("validate-pod", EXAMPLES.resolve("type-pin.yaml").toString()).out())
        .containsPattern("50% +12 GiB +elastic +310P3");
    assertThat(Run.of("validate-pod", EXAMPLES.resolve("spread.yaml").toString()).out())
        .contains("node policy spread, device policy spread");
    assertThat(Run.of("validate-pod", EXAMPLES.resolve("die-pin.yaml").toString()).out())
        .contains("die ID 0A1B2C3D-00000000-00000000-00000000-00000001");
  }
}
