package org.vnpu.api.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AiCorePolicy;

/**
 * The reader against bytes laid out as vnpu_contract.h documents them (RegionFixture writes the
 * documented offsets independently of the reader). The same offsets are checked on the C side
 * (test_region_layout.c), and vnpu-device-plugin reads a region the real shim wrote
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
    Path file =
        new RegionFixture("DIE-7")
            .container(2, "pod-uid", "model", 0, 30, 8L << 30, 12_345, 777, 9)
            .process(3, 4242, 2, 12_345)
            .token(3)
            .write(directory.resolve("region"));

    SharedRegion region = SharedRegion.read(file);

    assertThat(region.dieId()).isEqualTo("DIE-7");
    assertThat(region.periodMicros()).isEqualTo(100_000);
    assertThat(region.quantumMicros()).isEqualTo(10_000);
    assertThat(region.tokenProcess()).isEqualTo(3);
    assertThat(region.containers())
        .containsExactly(
            new SharedRegion.ContainerSlot(
                2, "pod-uid", "model", AiCorePolicy.FIXED_SHARE, 30, 8L << 30, 12_345, 777, 9, 0));
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
