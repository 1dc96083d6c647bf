package org.vnpu.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;

class SimulatedNpuDriverTest {

  @TempDir Path directory;

  private final ChipCatalog catalog = ChipCatalog.builtIn();
  private Instant now = Instant.parse("2026-11-29T12:00:00Z");
  private final Clock clock =
      new Clock() {
        @Override
        public Instant instant() {
          return now;
        }

        @Override
        public ZoneOffset getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }
      };

  @Test
  void expandsCountsFillsCatalogFiguresAndAppliesScriptedHealthChanges() throws IOException {
    Path file =
        write(
            "chips:",
            "  - {type: 910B3, count: 2, numaNode: 0}",
            "  - {type: 310P3, index: 5, dieId: DIE-5, memoryMiB: 20000, aiCoreUtilization: 35,"
                + " memoryUsedMiB: 2048, temperatureCelsius: 51}",
            "healthChanges:",
            "  - {afterSeconds: 30, chip: 1, healthy: false}",
            "  - {afterSeconds: 60, chip: 1, healthy: true}");
    SimulatedNpuDriver driver = new SimulatedNpuDriver(file, "node-a", catalog, clock);

    List<RegisteredChip> chips = driver.chips();
    assertThat(chips)
        .containsExactly(
            new RegisteredChip(0, "SIM-node-a-0", "910B3", 65536, 0, 0, true, 0, ""),
            new RegisteredChip(1, "SIM-node-a-1", "910B3", 65536, 0, 0, true, 0, ""),
            new RegisteredChip(5, "DIE-5", "310P3", 20000, 0, 0, true, -1, ""));
    assertThat(driver.usage(chips.get(2)))
        .isEqualTo(new ChipUsage(35, 2048, List.of(), 51.0, null));

    now = now.plus(Duration.ofSeconds(30));
    assertThat(driver.chips().get(1).healthy()).isFalse();
    now = now.plus(Duration.ofSeconds(30));
    assertThat(driver.chips().get(1).healthy()).isTrue();
  }

  @Test
  void theDocumentedExampleDescribesEightChips() {
    Path example = Path.of("../deploy/examples/simulated-inventory.yaml");

    List<RegisteredChip> chips = new SimulatedNpuDriver(example, "n", catalog, clock).chips();

    assertThat(chips).hasSize(8).allMatch(RegisteredChip::healthy);
    assertThat(chips.get(7).numaNode()).isEqualTo(1);
  }

  @Test
  void deviceShareModeIsOnUnlessTheFileTurnsItOff() throws IOException {
    Path file = write("chips:", "  - {type: 910B3}", "  - {type: 910B3, deviceShare: false}");
    SimulatedNpuDriver driver = new SimulatedNpuDriver(file, "n", catalog, clock);

    assertThat(driver.chips())
        .extracting(driver::deviceShare)
        .containsExactly(Optional.of(true), Optional.of(false));
  }

  @Test
  void editingTheFileChangesTheNode() throws IOException {
    Path file = write("chips:", "  - {type: 910B3}");
    SimulatedNpuDriver driver = new SimulatedNpuDriver(file, "n", catalog, clock);
    write("chips:", "  - {type: 910B3, healthy: false}");

    assertThat(driver.chips()).extracting(RegisteredChip::healthy).containsExactly(false);
  }

  @Test
  void badFilesAreRefusedWithTheirPlace() throws IOException {
    assertRefused("chips[0].type=920X is not in the chip catalog", "chips:", "  - {type: 920X}");
    assertRefused(
        "chips[1]: chip index 1 appears twice",
        "chips:",
        "  - {type: 910B3, count: 2}",
        "  - {type: 910B3, index: 1}");
    assertRefused(
        "healthChanges name chip 7, which is not listed",
        "chips:",
        "  - {type: 910B3}",
        "healthChanges:",
        "  - {afterSeconds: 0, chip: 7, healthy: false}");
    assertRefused("lists no chips", "chips: []");
    assertRefused("chips[0].count=0: must be at least 1", "chips:", "  - {type: 910B3, count: 0}");
    assertThatThrownBy(
            () -> new SimulatedNpuDriver(directory.resolve("missing.yaml"), "n", catalog, clock))
        .isInstanceOf(DriverException.class)
        .hasMessageContaining("missing.yaml: no such file");
  }

  private void assertRefused(String message, String... lines) throws IOException {
    Path file = write(lines);
    assertThatThrownBy(() -> new SimulatedNpuDriver(file, "n", catalog, clock))
        .isInstanceOf(DriverException.class)
        .hasMessageContaining(message);
  }

  private Path write(String... lines) throws IOException {
    Path file = directory.resolve("inventory.yaml");
    Files.writeString(file, String.join("\n", lines) + "\n");
    return file;
  }
}
