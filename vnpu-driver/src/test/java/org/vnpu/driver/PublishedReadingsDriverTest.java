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
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;

/**
 * The exporter reads the chips from the readings the device plugin publishes, so it needs no device
 * files; stale, missing or planted readings are a failing driver, never frozen numbers or a hung
 * scrape.
 */
class PublishedReadingsDriverTest {

  private static final Instant TAKEN = Instant.parse("2026-12-01T12:00:00Z");
  private static final Duration MAX_AGE = Duration.ofSeconds(30);

  @TempDir Path state;

  private PublishedReadingsDriver exporterAt(Instant now) {
    return new PublishedReadingsDriver(state, MAX_AGE, Clock.fixed(now, ZoneOffset.UTC));
  }

  private void publishFrom(NpuDriver driver) {
    new ReadingsPublisher(driver, state, Clock.fixed(TAKEN, ZoneOffset.UTC)).run();
  }

  @Test
  void theExporterSeesWhatTheDevicePluginsDriverSaid() throws IOException {
    Path inventory =
        Files.writeString(
            state.resolve("inventory.yaml"),
            "chips:\n  - {type: 910B3, count: 2, aiCoreUtilization: 40, memoryUsedMiB: 3000}\n");
    SimulatedNpuDriver driver =
        new SimulatedNpuDriver(
            inventory, "n", ChipCatalog.builtIn(), Clock.fixed(TAKEN, ZoneOffset.UTC));
    publishFrom(driver);

    PublishedReadingsDriver exporter = exporterAt(TAKEN.plusSeconds(5));
    List<RegisteredChip> chips = exporter.chips();

    assertThat(chips).isEqualTo(driver.chips());
    assertThat(exporter.usage(chips.get(1))).isEqualTo(driver.usage(chips.get(1)));
    assertThat(exporter.usage(chips.get(1)).aiCorePercent()).isEqualTo(40);
  }

  @Test
  void aChipWhoseUsageTheDriverCouldNotReadHasNone() {
    RegisteredChip chip = new RegisteredChip(0, "DIE-0", "910B3", 65536, 20, 7, true, 0, "");
    publishFrom(usageFailing(() -> List.of(chip)));

    PublishedReadingsDriver exporter = exporterAt(TAKEN);

    assertThat(exporter.chips()).containsExactly(chip);
    assertThatThrownBy(() -> exporter.usage(chip))
        .isInstanceOf(DriverException.class)
        .hasMessageContaining("could not read the usage of chip 0");
  }

  @Test
  void readingsTheDevicePluginStoppedRenewingAreRefusedWithTheirAge() throws IOException {
    new DriverReadings(TAKEN, List.of()).write(state.resolve(DriverReadings.FILE_NAME));

    assertThat(exporterAt(TAKEN.plus(MAX_AGE)).chips()).isEmpty();
    assertThatThrownBy(() -> exporterAt(TAKEN.plusSeconds(95)).chips())
        .isInstanceOf(DriverException.class)
        .hasMessageContaining("written 95 s ago")
        .hasMessageContaining("stopped renewing");
  }

  @Test
  void noReadingsSayWhereTheyWereLookedFor() {
    assertThatThrownBy(() -> exporterAt(TAKEN).chips())
        .isInstanceOf(DriverException.class)
        .hasMessageContaining("is the device plugin running")
        .hasMessageContaining(state.toString());
  }

  @Test
  void aLinkAFifoOrAHugeOrGarbledFileIsRefusedUnread() throws Exception {
    Path file = state.resolve(DriverReadings.FILE_NAME);
    Path elsewhere = Files.writeString(state.resolve("elsewhere.json"), "{}");

    Files.createSymbolicLink(file, elsewhere);
    assertThatThrownBy(() -> exporterAt(TAKEN).chips()).hasMessageContaining("not a regular file");
    Files.delete(file);

    assertThat(new ProcessBuilder("mkfifo", file.toString()).start().waitFor()).isZero();
    assertThatThrownBy(() -> exporterAt(TAKEN).chips()).hasMessageContaining("not a regular file");
    Files.delete(file);

    Files.write(file, new byte[DriverReadings.MAX_BYTES + 1]);
    assertThatThrownBy(() -> exporterAt(TAKEN).chips()).hasMessageContaining("more than readings");

    Files.writeString(file, "{\"at\": \"yesterday\"");
    assertThatThrownBy(() -> exporterAt(TAKEN).chips()).hasMessageContaining("holds no readings");
  }

  @Test
  void aFailingDriverLeavesTheLastReadingsToAge() throws IOException {
    new DriverReadings(TAKEN, List.of()).write(state.resolve(DriverReadings.FILE_NAME));

    new ReadingsPublisher(
            usageFailing(
                () -> {
                  throw new DriverException("dcmi_get_card_list returned -8020");
                }),
            state,
            Clock.fixed(TAKEN.plusSeconds(60), ZoneOffset.UTC))
        .run();

    assertThat(DriverReadings.read(state.resolve(DriverReadings.FILE_NAME)).at()).isEqualTo(TAKEN);
  }

  /** A driver listing {@code chips} that cannot read any chip's usage. */
  private static NpuDriver usageFailing(Supplier<List<RegisteredChip>> chips) {
    return new NpuDriver() {
      @Override
      public String name() {
        return "flaky";
      }

      @Override
      public List<RegisteredChip> chips() {
        return chips.get();
      }

      @Override
      public ChipUsage usage(RegisteredChip chip) {
        throw new DriverException("dcmi_get_device_utilization_rate returned -8005");
      }
    };
  }
}
