package org.vnpu.api.region;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a container's books laid out as vnpu_contract.h documents them, for tests and benchmarks
 * of readers (the shim itself writes real ones).
 */
public final class BooksFixture {

  private final ByteBuffer bytes =
      ByteBuffer.allocate(ContainerBooks.SIZE).order(ByteOrder.LITTLE_ENDIAN);

  /** Books of chip {@code dieId} with no processes. */
  public BooksFixture(String dieId) {
    bytes
        .putInt(0, ContainerBooks.MAGIC)
        .putInt(4, ContainerBooks.VERSION)
        .putInt(8, ContainerBooks.SIZE)
        .putInt(12, ContainerBooks.MAX_PROCESSES);
    bytes.put(64, dieId.getBytes(StandardCharsets.UTF_8));
  }

  /** Sets the container's totals. */
  public BooksFixture totals(long usedBytes, long busyNanos, long launches, int waiting) {
    bytes.putLong(16, usedBytes).putLong(40, busyNanos).putLong(48, launches).putInt(56, waiting);
    return this;
  }

  /** Sets the container's co-location counters. */
  public BooksFixture colocation(long suffered, long caused, long waitNanos) {
    bytes.putLong(192, suffered).putLong(200, caused).putLong(208, waitNanos);
    return this;
  }

  /** Fills process slot {@code slot}. */
  public BooksFixture process(int slot, int pid, long usedBytes) {
    int at = ContainerBooks.PROCESSES_OFFSET + slot * ContainerBooks.PROCESS_SLOT_SIZE;
    bytes.putInt(at, 1).putInt(at + 4, pid).putLong(at + 8, usedBytes);
    return this;
  }

  /** Writes the books to {@code file}, creating its directory. */
  public Path write(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    return Files.write(file, bytes.array());
  }
}
