package org.vnpu.core.chip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChipCatalogTest {

  private final ChipCatalog catalog = ChipCatalog.builtIn();

  @TempDir Path dir;

  @Test
  void builtInCatalogHasEveryChipTheContractNames() {
    assertThat(catalog.chips())
        .extracting(ChipModel::name)
        .containsExactly(
            "310P3", "910A", "910B1", "910B2", "910B3", "910B4", "910B4-1", "910_93", "950PR");
  }

  @Test
  void findsChipsByTheSpellingsOfOpenFuyaoAndDcmi() {
    assertThat(catalog.find("NPU-ASCEND-310P3")).map(ChipModel::name).contains("310P3");
    assertThat(catalog.find("Ascend910B3")).map(ChipModel::name).contains("910B3");
    assertThat(catalog.find("910b4-1")).map(ChipModel::name).contains("910B4-1");
    assertThat(catalog.find("910B9")).isEmpty();
  }

  @Test
  void marks950prAsNotYetVerified() {
    assertThat(catalog.find("950PR").orElseThrow().verified()).isFalse();
    assertThat(catalog.find("910B3").orElseThrow().verified()).isTrue();
  }

  @Test
  void keepsTemplatesSmallestFirst() {
    assertThat(catalog.find("310P3").orElseThrow().templates())
        .extracting(VnpuTemplate::name)
        .containsExactly("vir01", "vir02_1c", "vir02", "vir04_3c", "vir04");
  }

  @Test
  void derivesInterconnectGroupsFromIndexes() {
    Interconnect ring = catalog.find("910A").orElseThrow().interconnect();
    assertThat(ring.groupOf(3)).isEqualTo("hccs-ring-0");
    assertThat(ring.groupOf(4)).isEqualTo("hccs-ring-1");
    assertThat(catalog.find("910_93").orElseThrow().interconnect().groupOf(5))
        .isEqualTo("die-pair-2");
  }

  @Test
  void userFileAddsAndReplacesChips() throws IOException {
    Path file =
        write(
            """
            chips:
              - name: 910B3
                aiCores: 20
                aiCpus: 7
                memoryMiB: 61440
                verified: true
                interconnect: {kind: full-mesh, groupSize: 8}
                templates: []
              - name: 910X
                aiCores: 16
                aiCpus: 4
                memoryMiB: 16384
                verified: false
                interconnect: {kind: none, groupSize: 1}
            """);
    ChipCatalog merged = catalog.withOverrides(file);

    assertThat(merged.find("910B3").orElseThrow().memoryMiB()).isEqualTo(61440);
    assertThat(merged.find("910X").orElseThrow().templates()).isEmpty();
    assertThat(merged.chips()).hasSize(catalog.chips().size() + 1);
    assertThat(catalog.find("910B3").orElseThrow().memoryMiB()).isEqualTo(65536);
  }

  @Test
  void rejectsTemplateLargerThanItsChip() throws IOException {
    Path file =
        write(
            """
            chips:
              - name: tiny
                aiCores: 4
                aiCpus: 2
                memoryMiB: 4096
                verified: false
                interconnect: {kind: none, groupSize: 1}
                templates:
                  - {name: vir08, aiCores: 8, aiCpus: 2, memoryMiB: 2048}
            """);
    assertThatThrownBy(() -> catalog.withOverrides(file))
        .isInstanceOf(InvalidCatalogException.class)
        .hasMessage(
            "chip catalog "
                + file
                + ": chip tiny: template vir08 has 8 AI Cores, more than the chip's 4"
                + " (at chips[0])");
  }

  @Test
  void rejectsUnknownInterconnectKindNamingTheField() throws IOException {
    Path file =
        write(
            """
            chips:
              - name: odd
                aiCores: 4
                aiCpus: 2
                memoryMiB: 4096
                verified: false
                interconnect: {kind: token-ring, groupSize: 1}
            """);
    assertThatThrownBy(() -> catalog.withOverrides(file))
        .hasMessageContaining("token-ring")
        .hasMessageEndingWith("(at chips[0].interconnect.kind)");
  }

  @Test
  void rejectsChipListedTwice() throws IOException {
    String chip =
        """
          - name: twice
            aiCores: 4
            aiCpus: 2
            memoryMiB: 4096
            verified: false
            interconnect: {kind: none, groupSize: 1}
        """;
    Path file = write("chips:\n" + chip + chip);
    assertThatThrownBy(() -> catalog.withOverrides(file))
        .hasMessage("chip catalog " + file + ": chip twice appears twice");
  }

  @Test
  void rejectsUnknownFieldListingTheKnownOnes() throws IOException {
    Path file = write("gpus: []\n");
    assertThatThrownBy(() -> catalog.withOverrides(file))
        .hasMessage("chip catalog " + file + ": unknown field gpus (known: chips) (at gpus)");
  }

  @Test
  void rejectsFileWithoutChips() throws IOException {
    Path file = write("chips: []\n");
    assertThatThrownBy(() -> catalog.withOverrides(file))
        .hasMessage(
            "chip catalog " + file + ": lists no chips (expected a top-level `chips:` list)");
  }

  @Test
  void rejectsMissingFile() {
    Path missing = dir.resolve("nope.yaml");
    assertThatThrownBy(() -> catalog.withOverrides(missing))
        .hasMessageStartingWith("chip catalog " + missing + ": cannot be read: ");
  }

  private Path write(String yaml) throws IOException {
    return Files.writeString(dir.resolve("chips.yaml"), yaml);
  }
}
