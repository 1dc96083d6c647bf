package org.vnpu.api.region;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import org.vnpu.api.AiCorePolicy;

/**
 * A snapshot of one chip's shared region, read without taking its lock: fields may be a moment
 * apart from each other, never torn (aligned 4- and 8-byte values). Offsets are those of {@code
 * vnpu_contract.h}; both sides test them.
 *
 * @param dieId the chip the region belongs to
 * @param periodMicros the AI Core accounting period
 * @param quantumMicros the longest AI Core slice per turn
 * @param tokenProcess the process slot holding the AI Core token, -1 when none
 * @param containers the containers in use
 * @param processes the processes in use
 */
public record SharedRegion(
    String dieId,
    int periodMicros,
    int quantumMicros,
    int tokenProcess,
    List<ContainerSlot> containers,
    List<ProcessSlot> processes) {

  public static final int MAGIC = 0x55504E56;
  public static final int VERSION = 1;
  public static final int MAX_CONTAINERS = 64;
  public static final int MAX_PROCESSES = 256;
  public static final int HEADER_SIZE = 256;
  public static final int CONTAINER_SLOT_SIZE = 256;
  public static final int PROCESS_SLOT_SIZE = 128;
  public static final int CONTAINERS_OFFSET = HEADER_SIZE;
  public static final int PROCESSES_OFFSET =
      CONTAINERS_OFFSET + CONTAINER_SLOT_SIZE * MAX_CONTAINERS;
  public static final int SIZE = PROCESSES_OFFSET + PROCESS_SLOT_SIZE * MAX_PROCESSES;

  private static final int ID_LENGTH = 64;

  public SharedRegion {
    containers = List.copyOf(containers);
    processes = List.copyOf(processes);
  }

  /**
   * One container's books on the chip.
   *
   * @param slot its slot index
   * @param podUid UID of its pod
   * @param container container name
   * @param policy AI Core policy
   * @param cores AI Core percent
   * @param memoryQuotaBytes device-memory quota
   * @param memoryUsedBytes device memory its processes hold
   * @param busyNanos AI Core token time it used in total
   * @param launches kernel launches it made in total
   * @param waitingProcesses its processes waiting for the token now
   */
  public record ContainerSlot(
      int slot,
      String podUid,
      String container,
      AiCorePolicy policy,
      int cores,
      long memoryQuotaBytes,
      long memoryUsedBytes,
      long busyNanos,
      long launches,
      int waitingProcesses) {}

  /**
   * One process's books on the chip.
   *
   * @param slot its slot index
   * @param pid its PID as its /proc shows it (the host PID when the container shares the host's
   *     view)
   * @param container the slot index of its container
   * @param memoryUsedBytes device memory it holds
   */
  public record ProcessSlot(int slot, int pid, int container, long memoryUsedBytes) {}

  /**
   * Reads the region file once.
   *
   * @throws IOException when it cannot be read
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  public static SharedRegion read(Path file) throws IOException {
    return parse(file.toString(), map(file));
  }

  /**
   * Maps the region file read-only; {@link #parse} the mapping again for a fresh snapshot, as the
   * shims keep writing to it.
   *
   * @throws IOException when it cannot be read
   * @throws IllegalArgumentException when it has the wrong size for this version
   */
  public static ByteBuffer map(Path file) throws IOException {
    // Containers write the chip directory: what lies there may be a FIFO (opening it blocks) or a
    // link to any file. Only a regular file, not followed through links, is read (O_NOFOLLOW).
    BasicFileAttributes attributes =
        Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!attributes.isRegularFile()) {
      throw new IllegalArgumentException(
          file + " is not a regular file (a link, FIFO or device); a region is never read from it");
    }
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      if (channel.size() != SIZE) {
        throw new IllegalArgumentException(
            file + " has " + channel.size() + " bytes, a version " + VERSION + " region " + SIZE);
      }
      return channel.map(FileChannel.MapMode.READ_ONLY, 0, SIZE).order(ByteOrder.LITTLE_ENDIAN);
    }
  }

  /** Parses a region's bytes (little-endian); {@code source} names it in errors. */
  public static SharedRegion parse(String source, ByteBuffer buffer) {
    ByteBuffer b = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (b.getInt(0) != MAGIC || b.getInt(4) != VERSION) {
      throw new IllegalArgumentException(
          String.format(
              "%s is not a version %d vNPU region (magic 0x%08x, version %d)",
              source, VERSION, b.getInt(0), b.getInt(4)));
    }
    List<ContainerSlot> containers = new ArrayList<>();
    for (int i = 0; i < MAX_CONTAINERS; i++) {
      int at = CONTAINERS_OFFSET + i * CONTAINER_SLOT_SIZE;
      if (b.getInt(at) != 0) {
        containers.add(
            new ContainerSlot(
                i,
                text(b, at + 64),
                text(b, at + 128),
                policy(b.getInt(at + 4)),
                b.getInt(at + 8),
                b.getLong(at + 16),
                b.getLong(at + 24),
                b.getLong(at + 48),
                b.getLong(at + 56),
                b.getInt(at + 12)));
      }
    }
    List<ProcessSlot> processes = new ArrayList<>();
    for (int i = 0; i < MAX_PROCESSES; i++) {
      int at = PROCESSES_OFFSET + i * PROCESS_SLOT_SIZE;
      if (b.getInt(at) != 0) {
        processes.add(new ProcessSlot(i, b.getInt(at + 4), b.getInt(at + 8), b.getLong(at + 16)));
      }
    }
    return new SharedRegion(
        text(b, 48), b.getInt(20), b.getInt(24), b.getInt(28), containers, processes);
  }

  private static AiCorePolicy policy(int value) {
    switch (value) {
      case 0:
        return AiCorePolicy.FIXED_SHARE;
      case 1:
        return AiCorePolicy.ELASTIC;
      default:
        return AiCorePolicy.BEST_EFFORT;
    }
  }

  private static String text(ByteBuffer b, int at) {
    int length = 0;
    while (length < ID_LENGTH && b.get(at + length) != 0) {
      length++;
    }
    byte[] bytes = new byte[length];
    b.get(at, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
