package org.vnpu.api.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The readers and writers against bytes laid out as vnpu_contract.h documents them (BooksFixture
 * writes the documented offsets independently of the reader). The same offsets are checked on the C
 * side (test_region_layout.c), and vnpu-device-plugin reads books the real shim wrote
 * (ShimBooksTest).
 */
class ContainerBooksTest {

  @TempDir Path directory;

  @Test
  void sizesAgreeWithTheCHeader() {
    assertThat(ContainerBooks.SIZE).isEqualTo(256 + 128 * 256);
    assertThat(ChipRegion.SIZE).isEqualTo(128);
  }

  @Test
  void readsTotalsAndProcessesAtTheirOffsets() throws IOException {
    Path file =
        new BooksFixture("DIE-7")
            .totals(12_345, 777, 9, 2)
            .colocation(4, 5, 6_000)
            .process(3, 4242, 12_345)
            .write(directory.resolve("DIE-7"));

    ContainerBooks books = ContainerBooks.read(file);

    assertThat(books)
        .isEqualTo(
            new ContainerBooks(
                "DIE-7",
                12_345,
                777,
                9,
                2,
                4,
                5,
                6_000,
                List.of(new ContainerBooks.ProcessSlot(3, 4242, 12_345))));
  }

  @Test
  void refusesFilesThatAreNotBooks() throws IOException {
    Path short_ = Files.write(directory.resolve("short"), new byte[10]);
    assertThatThrownBy(() -> ContainerBooks.read(short_))
        .hasMessageContaining("has 10 bytes, version 1 books " + ContainerBooks.SIZE);
    Path zeros = Files.write(directory.resolve("zeros"), new byte[ContainerBooks.SIZE]);
    assertThatThrownBy(() -> ContainerBooks.read(zeros))
        .hasMessageContaining("is not version 1 vNPU books (magic 0x00000000, version 0)");
  }

  @Test
  void theDevicePluginCreatesARegionAndRewritesOnlyItsHeaderInPlace() throws IOException {
    Path file = directory.resolve("region");
    ChipRegion.prepare(file, "DIE-7");
    ByteBuffer created = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(created.capacity()).isEqualTo(ChipRegion.SIZE);
    assertThat(created.getInt(0)).isEqualTo(ChipRegion.MAGIC);
    assertThat(created.getInt(4)).isEqualTo(ChipRegion.VERSION);
    assertThat(created.getInt(8)).isEqualTo(ChipRegion.SIZE);
    assertThat(new String(created.array(), ChipRegion.DIE_ID_OFFSET, 5, StandardCharsets.UTF_8))
        .isEqualTo("DIE-7");

    // A container overwrote the header and holds the token; the token stays, the header is mended.
    byte[] scribbled = new byte[ChipRegion.SIZE];
    Arrays.fill(scribbled, (byte) 0x7f);
    Object inode = Files.getAttribute(file, "unix:ino");
    Files.write(file, scribbled);
    ChipRegion.prepare(file, "DIE-7");
    ByteBuffer mended = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(mended.getInt(0)).isEqualTo(ChipRegion.MAGIC);
    assertThat(mended.getLong(ChipRegion.TOKEN_OFFSET)).isEqualTo(0x7f7f7f7f7f7f7f7fL);
    assertThat(mended.get(ChipRegion.DIE_ID_OFFSET + 5)).isZero();
    assertThat(Files.getAttribute(file, "unix:ino")).isEqualTo(inode);
  }
}
