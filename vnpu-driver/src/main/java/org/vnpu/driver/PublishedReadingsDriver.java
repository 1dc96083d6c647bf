package org.vnpu.driver;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.vnpu.api.payload.RegisteredChip;

/**
 * The chips as the node agent with device access last read them ({@link DriverReadings}), for the
 * exporter, which then needs no device files and no privileges. Each {@link #chips()} reads the
 * file again; readings older than the given age are refused, so a stopped device plugin shows as a
 * failing driver rather than as numbers frozen in time.
 */
public final class PublishedReadingsDriver implements NpuDriver {

  private final Path file;
  private final Duration maxAge;
  private final Clock clock;
  private Map<Integer, DriverReadings.Reading> last = Map.of();

  /** Reads {@value DriverReadings#FILE_NAME} of {@code stateDirectory}. */
  public PublishedReadingsDriver(Path stateDirectory, Duration maxAge, Clock clock) {
    this.file = stateDirectory.resolve(DriverReadings.FILE_NAME);
    this.maxAge = maxAge;
    this.clock = clock;
  }

  @Override
  public String name() {
    return "readings";
  }

  @Override
  public List<RegisteredChip> chips() {
    DriverReadings readings;
    try {
      readings = DriverReadings.read(file);
    } catch (IOException | IllegalArgumentException e) {
      last = Map.of();
      throw new DriverException(
          "cannot read the device plugin's readings ("
              + e.getMessage()
              + "); is the device plugin running on this node with state directory "
              + file.getParent()
              + "?");
    }
    Duration age = Duration.between(readings.at(), clock.instant());
    if (age.compareTo(maxAge) > 0) {
      last = Map.of();
      throw new DriverException(
          file
              + " was written "
              + age.toSeconds()
              + " s ago (at "
              + readings.at()
              + "), more than "
              + maxAge.toSeconds()
              + " s: the device plugin stopped renewing it");
    }
    last =
        readings.chips().stream()
            .collect(Collectors.toMap(r -> r.chip().index(), Function.identity(), (a, b) -> b));
    return readings.chips().stream().map(DriverReadings.Reading::chip).toList();
  }

  @Override
  public ChipUsage usage(RegisteredChip chip) {
    DriverReadings.Reading reading = last.get(chip.index());
    if (reading == null || reading.usage() == null) {
      throw new DriverException(
          "the device plugin could not read the usage of chip " + chip.index());
    }
    return reading.usage();
  }
}
