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

/**
 * A snapshot of one container's books on one chip, the file its shims keep their memory, AI Core
 * time and processes in, read without taking its lock: fields may be a moment apart from each
 * other, never torn (aligned 8-byte values). Offsets are those of {@code vnpu_contract.h}; both
 * sides test them.
 *
 * @param dieId the chip the books are about
 * @param memoryUsedBytes device memory the container's processes hold
 * @param busyNanos AI Core token time it used in total
 * @param launches kernel launches it made in total
 * @param waitingProcesses its processes waiting for the token now
 * @param preemptionsSuffered turns it gave up to online work (offline containers)
 * @param preemptionsCaused turns it took from offline work (online containers)
 * @param launchWaitNanos time its launches waited for the token in total
 * @param processes its processes
 */
public record ContainerBooks(
    String dieId,
    long memoryUsedBytes,
    long busyNanos,
    long launches,
    int waitingProcesses,
    long preemptionsSuffered,
    long preemptionsCaused,
    long launchWaitNanos,
    List<ProcessSlot> processes) {

  public static final int MAGIC = 0x42504E56;
  public static final int VERSION = 1;
  public static final int MAX_PROCESSES = 256;
  public static final int HEADER_SIZE = 256;
  public static final int PROCESS_SLOT_SIZE = 128;
  public static final int PROCESSES_OFFSET = HEADER_SIZE;
  public static final int SIZE = PROCESSES_OFFSET + PROCESS_SLOT_SIZE * MAX_PROCESSES;

  private static final int ID_LENGTH = 64;

  public ContainerBooks {
    processes = List.copyOf(processes);
  }

  /**
   * One process of the container.
   *
   * @param slot its slot index
   * @param pid its PID as its /proc shows it
   * @param memoryUsedBytes device memory it holds
   */
  public record ProcessSlot(int slot, int pid, long memoryUsedBytes) {}

  /**
   * Reads the books file once.
   *
   * @throws IOException when it cannot be read
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  public static ContainerBooks read(Path file) throws IOException {
    return parse(file.toString(), map(file));
  }

  /**
   * Maps the books file read-only; {@link #parse} the mapping again for a fresh snapshot, as the
   * shims keep writing to it.
   *
   * @throws IOException when it cannot be read
   * @throws IllegalArgumentException when it is no regular file or has the wrong size
   */
  public static ByteBuffer map(Path file) throws IOException {
    // The container writes its books directory: what lies there may be a FIFO (opening it blocks)
    // or a link to any file. Only a regular file, not followed through links, is read.
    BasicFileAttributes attributes =
        Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!attributes.isRegularFile()) {
      throw new IllegalArgumentException(
          file + " is not a regular file (a link, FIFO or device); books are never read from it");
    }
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      if (channel.size() != SIZE) {
        throw new IllegalArgumentException(
            file + " has " + channel.size() + " bytes, version " + VERSION + " books " + SIZE);
      }
      return channel.map(FileChannel.MapMode.READ_ONLY, 0, SIZE).order(ByteOrder.LITTLE_ENDIAN);
    }
  }

  /** Parses the books' bytes (little-endian); {@code source} names them in errors. */
  public static ContainerBooks parse(String source, ByteBuffer buffer) {
    ByteBuffer b = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (b.getInt(0) != MAGIC || b.getInt(4) != VERSION) {
      throw new IllegalArgumentException(
          String.format(
              "%s is not version %d vNPU books (magic 0x%08x, version %d)",
              source, VERSION, b.getInt(0), b.getInt(4)));
    }
    List<ProcessSlot> processes = new ArrayList<>();
    for (int i = 0; i < MAX_PROCESSES; i++) {
      int at = PROCESSES_OFFSET + i * PROCESS_SLOT_SIZE;
      if (b.getInt(at) != 0) {
        processes.add(new ProcessSlot(i, b.getInt(at + 4), b.getLong(at + 8)));
      }
    }
    return new ContainerBooks(
        text(b, 64),
        b.getLong(16),
        b.getLong(40),
        b.getLong(48),
        b.getInt(56),
        b.getLong(192),
        b.getLong(200),
        b.getLong(208),
        processes);
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
