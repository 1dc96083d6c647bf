package org.vnpu.api.region;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes shared-region files laid out as vnpu_contract.h documents them, for tests and benchmarks
 * of readers (the shim itself writes real ones).
 */
public final class RegionFixture {

  private final ByteBuffer bytes =
      ByteBuffer.allocate(SharedRegion.SIZE).order(ByteOrder.LITTLE_ENDIAN);

  /** A region of chip {@code dieId} with no containers and no token holder. */
  public RegionFixture(String dieId) {
    bytes
        .putInt(0, SharedRegion.MAGIC)
        .putInt(4, SharedRegion.VERSION)
        .putInt(8, SharedRegion.SIZE);
    bytes.putInt(12, SharedRegion.MAX_CONTAINERS).putInt(16, SharedRegion.MAX_PROCESSES);
    bytes.putInt(20, 100_000).putInt(24, 10_000).putInt(28, -1);
    bytes.put(48, dieId.getBytes(StandardCharsets.UTF_8));
  }

  /** Fills container slot {@code slot}; policy 0 fixed-share, 1 elastic, 2 best-effort. */
  public RegionFixture container(
      int slot,
      String podUid,
      String container,
      int policy,
      int cores,
      long quotaBytes,
      long usedBytes,
      long busyNanos,
      long launches) {
    int at = SharedRegion.CONTAINERS_OFFSET + slot * SharedRegion.CONTAINER_SLOT_SIZE;
    bytes.putInt(at, 1).putInt(at + 4, policy).putInt(at + 8, cores);
    bytes.putLong(at + 16, quotaBytes).putLong(at + 24, usedBytes);
    bytes.putLong(at + 48, busyNanos).putLong(at + 56, launches);
    bytes.put(at + 64, podUid.getBytes(StandardCharsets.UTF_8));
    bytes.put(at + 128, container.getBytes(StandardCharsets.UTF_8));
    return this;
  }

  /** Fills process slot {@code slot} of container slot {@code container}. */
  public RegionFixture process(int slot, int pid, int container, long usedBytes) {
    int at = SharedRegion.PROCESSES_OFFSET + slot * SharedRegion.PROCESS_SLOT_SIZE;
    bytes.putInt(at, 1).putInt(at + 4, pid).putInt(at + 8, container).putLong(at + 16, usedBytes);
    return this;
  }

  /** Marks {@code processSlot} as holding the AI Core token. */
  public RegionFixture token(int processSlot) {
    bytes.putInt(28, processSlot);
    return this;
  }

  /** Writes the region to {@code file}, creating its directory. */
  public Path write(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    return Files.write(file, bytes.array());
  }
}
