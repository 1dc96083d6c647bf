package org.vnpu.driver;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the driver's readings and writes them for the exporter ({@link DriverReadings}). Run it on
 * the thread that owns the driver. When the driver fails, the file is left as it was: it ages, and
 * the exporter reports the driver as failing once it is too old.
 */
public final class ReadingsPublisher implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(ReadingsPublisher.class);

  private final NpuDriver driver;
  private final Path file;
  private final Clock clock;

  /** Publishes into {@value DriverReadings#FILE_NAME} of {@code stateDirectory}. */
  public ReadingsPublisher(NpuDriver driver, Path stateDirectory, Clock clock) {
    this.driver = driver;
    this.file = stateDirectory.resolve(DriverReadings.FILE_NAME);
    this.clock = clock;
  }

  /** One publication. Never throws. */
  @Override
  public void run() {
    try {
      DriverReadings.take(
              driver,
              clock.instant(),
              (chip, e) ->
                  LOG.warn(
                      "{} driver cannot read chip {}: {}",
                      driver.name(),
                      chip.index(),
                      e.getMessage()))
          .write(file);
    } catch (DriverException e) {
      LOG.warn(
          "{} driver failed; readings for the exporter not renewed: {}",
          driver.name(),
          e.getMessage());
    } catch (IOException e) {
      LOG.warn("cannot write the driver readings to {}: {}", file, e.toString());
    }
  }
}
