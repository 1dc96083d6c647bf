package org.vnpu.api.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AiCorePolicy;

/**
 * The reader against bytes laid out as vnpu_contract.h documents them. The same offsets are checked
 * on the C side (test_region_layout.c), and vnpu-device-plugin reads a region the real shim wrote
 * (ShimRegionTest).
 */
class SharedRegionTest {

  @TempDir Path directory;

  @Test
  void sizesAgreeWithTheCHeader() {
    assertThat(SharedRegion.PROCESSES_OFFSET).isEqualTo(256 + 256 * 64);
    assertThat(SharedRegion.SIZE).isEqualTo(256 + 256 * 64 + 128 * 256);
  }

  @Test
  void readsHeaderContainersAndProcessesAtTheirOffsets() throws IOException {
    ByteBuffer b = ByteBuffer.allocate(SharedRegion.SIZE).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0, SharedRegion.MAGIC).putInt(4, 1).putInt(8, SharedRegion.SIZE);
    b.putInt(20, 100_000).putInt(24, 10_000).putInt(28, 3);
    b.put(48, "DIE-7".getBytes(StandardCharsets.UTF_8));
    int c = SharedRegion.CONTAINERS_OFFSET + 2 * SharedRegion.CONTAINER_SLOT_SIZE;
    b.putInt(c, 1).putInt(c + 4, 0).putInt(c + 8, 30).putInt(c + 12, 1);
    b.putLong(c + 16, 8L << 30).putLong(c + 24, 12_345).putLong(c + 48, 777).putLong(c + 56, 9);
    b.put(c + 64, "pod-uid".getBytes(StandardCharsets.UTF_8));
    b.put(c + 128, "model".getBytes(StandardCharsets.UTF_8));
    int p = SharedRegion.PROCESSES_OFFSET + 3 * SharedRegion.PROCESS_SLOT_SIZE;
    b.putInt(p, 1).putInt(p + 4, 4242).putInt(p + 8, 2).putLong(p + 16, 12_345);
    Path file = directory.resolve("region");
    Files.write(file, b.array());

    SharedRegion region = SharedRegion.read(file);

    assertThat(region.dieId()).isEqualTo("DIE-7");
    assertThat(region.periodMicros()).isEqualTo(100_000);
    assertThat(region.quantumMicros()).isEqualTo(10_000);
    assertThat(region.tokenProcess()).isEqualTo(3);
    assertThat(region.containers())
        .containsExactly(
            new SharedRegion.ContainerSlot(
                2, "pod-uid", "model", AiCorePolicy.FIXED_SHARE, 30, 8L << 30, 12_345, 777, 9, 1));
    assertThat(region.processes())
        .containsExactly(new SharedRegion.ProcessSlot(3, 4242, 2, 12_345));
  }

  @Test
  void refusesFilesThatAreNotARegion() throws IOException {
    Path short_ = Files.write(directory.resolve("short"), new byte[10]);
    assertThatThrownBy(() -> SharedRegion.read(short_))
        .hasMessageContaining("has 10 bytes, a version 1 region " + SharedRegion.SIZE);
    Path zeros = Files.write(directory.resolve("zeros"), new byte[SharedRegion.SIZE]);
    assertThatThrownBy(() -> SharedRegion.read(zeros))
        .hasMessageContaining("is not a version 1 vNPU region (magic 0x00000000, version 0)");
  }
}
