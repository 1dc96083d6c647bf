package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.testkit.GoldenFile;

class ChipsCommandTest {

  @TempDir Path dir;

  @Test
  void printsCatalogAsTable() throws IOException {
    Run run = Run.of("chips");
    assertThat(run.exitCode()).isZero();
    GoldenFile.assertMatches("chips.txt", run.out().stripTrailing());
  }

  @Test
  void printsCatalogAsJson() throws IOException {
    Run run = Run.of("chips", "--output", "json");
    JsonNode chips = new ObjectMapper().readTree(run.out());
    assertThat(chips).hasSize(9);
    assertThat(chips.get(4).path("name").asText()).isEqualTo("910B3");
    assertThat(chips.get(4).path("templates").get(1).path("name").asText())
        .isEqualTo("vir10_3c_32g");
  }

  @Test
  void appliesUserCatalog() throws IOException {
    Path file =
        Files.writeString(
            dir.resolve("extra.yaml"),
            """
            chips:
              - {name: 910X, aiCores: 16, aiCpus: 4, memoryMiB: 16384, verified: false,
                 interconnect: {kind: none, groupSize: 1}}
            """);
    Run run = Run.of("chips", "--chip-catalog", file.toString());
    assertThat(run.out())
        .containsPattern("(?m)^910X +16 +4 +16 GiB +none +- \\(no hard mode\\) +no$");
  }

  @Test
  void badUserCatalogEndsWithItsMessage() throws IOException {
    Path file = Files.writeString(dir.resolve("bad.yaml"), "chips: []\n");
    Run run = Run.of("chips", "--chip-catalog", file.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "vnpu chips: chip catalog "
                + file
                + ": lists no chips (expected a top-level `chips:` list)\n");
  }
}
