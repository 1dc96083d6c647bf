package org.vnpu.driver;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.vnpu.api.payload.RegisteredChip;

/**
 * What the driver said about every chip at one moment. The node agent that holds the chips' device
 * files (the device plugin or the DRA driver) takes these readings and writes them to {@value
 * #FILE_NAME} in its state directory; the exporter reads that file instead of the driver, so it
 * runs unprivileged and without device files (docs/security.md).
 *
 * @param at when the readings were taken
 * @param chips every chip the driver reported, ordered by index
 */
public record DriverReadings(Instant at, List<Reading> chips) {

  /** The file's name in the node agent's state directory. */
  public static final String FILE_NAME = "driver-readings.json";

  /** Larger files are refused unread: a node's readings take a few KiB. */
  static final int MAX_BYTES = 1 << 20;

  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .build();

  /**
   * One chip and what it was doing.
   *
   * @param chip the chip as the driver reported it, health included
   * @param usage its activity; null when the driver could not read it
   */
  public record Reading(RegisteredChip chip, ChipUsage usage) {
    public Reading {
      Objects.requireNonNull(chip, "chip");
    }
  }

  public DriverReadings {
    Objects.requireNonNull(at, "at");
    chips = List.copyOf(chips);
  }

  /**
   * Asks {@code driver} for the chips and each chip's usage.
   *
   * @param usageFailed told of each chip whose usage could not be read (its usage is then null)
   * @throws DriverException when the driver cannot list the chips
   */
  public static DriverReadings take(
      NpuDriver driver, Instant at, BiConsumer<RegisteredChip, DriverException> usageFailed) {
    List<Reading> readings = new ArrayList<>();
    for (RegisteredChip chip : driver.chips()) {
      ChipUsage usage = null;
      try {
        usage = driver.usage(chip);
      } catch (DriverException e) {
        usageFailed.accept(chip, e);
      }
      readings.add(new Reading(chip, usage));
    }
    return new DriverReadings(at, readings);
  }

  /** Writes these readings to {@code file} at once: readers see the old file or the new one. */
  public void write(Path file) throws IOException {
    Path partial = file.resolveSibling(file.getFileName() + ".partial");
    Files.write(partial, JSON.writeValueAsBytes(this));
    Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * Reads readings written by {@link #write}: a regular file only, never through a link, of at most
   * 1 MiB.
   *
   * @throws IOException when the file cannot be read
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  public static DriverReadings read(Path file) throws IOException {
    BasicFileAttributes attributes =
        Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!attributes.isRegularFile()) {
      throw new IllegalArgumentException(file + " is not a regular file (a link, FIFO or device)");
    }
    if (attributes.size() > MAX_BYTES) {
      throw new IllegalArgumentException(
          file
              + " has "
              + attributes.size()
              + " bytes, more than readings take ("
              + MAX_BYTES
              + ")");
    }
    try (FileChannel channel =
            FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        InputStream in = Channels.newInputStream(channel)) {
      DriverReadings readings = JSON.readValue(in.readNBytes(MAX_BYTES + 1), DriverReadings.class);
      if (readings == null) {
        throw new IllegalArgumentException(file + " holds no readings");
      }
      return readings;
    } catch (JacksonException e) {
      throw new IllegalArgumentException(file + " holds no readings: " + e.getMessage(), e);
    }
  }
}
