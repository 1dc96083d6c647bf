package org.vnpu.deviceplugin.shim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.LogLevel;
import org.vnpu.api.ShimContract;
import org.vnpu.api.codec.ShimConfigFormat;
import org.vnpu.api.payload.ShimConfig;
import org.vnpu.api.payload.ShimDevice;
import org.vnpu.api.region.ChipRegion;
import org.vnpu.api.region.ContainerBooks;
import org.vnpu.handouts.NodeFiles;

/**
 * Both halves of the shim contract across languages: the config and the chip region the device
 * plugin writes (Java) are what the real shim (C) runs with, and the books the shim writes are the
 * books the Java reader reads.
 */
class ShimBooksTest {

  private static final Path BUILD = Path.of(System.getProperty("vnpu.libvnpu.build"));

  @TempDir Path directory;

  @Test
  void theShimRunsWithJavaWrittenFilesAndJavaReadsItsBooks() throws Exception {
    NodeFiles files = new NodeFiles(directory.resolve("state")).prepare();
    Path region = files.chipRegion("DIE-LAYOUT");
    NodeFiles.PodRecord pod = new NodeFiles.PodRecord("0b7c-uid", "serving", "bert-0");
    Path books = ShimContract.hostBooksDirectory(directory.resolve("state"), pod.uid(), "model");
    // Outside a container the host paths stand where the mounts would put the container paths.
    NodeFiles.ShimFiles shim =
        files.writeShimFiles(
            pod.uid(),
            pod,
            "model",
            new ShimConfigFormat()
                .write(
                    new ShimConfig(
                        pod.uid(),
                        pod.namespace(),
                        pod.name(),
                        "model",
                        books.toString(),
                        LogLevel.WARN,
                        null,
                        List.of(
                            new ShimDevice(
                                "DIE-LAYOUT",
                                1L << 30,
                                30,
                                AiCorePolicy.FIXED_SHARE,
                                region.toString())))));
    Path config = shim.config();
    ProcessBuilder builder =
        new ProcessBuilder(BUILD.resolve("tests/test_region_layout").toString(), "hold");
    builder.environment().put("LD_PRELOAD", BUILD.resolve("libvnpu.so").toString());
    builder.environment().put(ShimContract.CONFIG_ENV, config.toString());
    builder.environment().put("VNPU_FAKE_RT_DIR", directory.resolve("fake-rt").toString());
    builder.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process process = builder.start();
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).isEqualTo("ready");

      ContainerBooks read = ContainerBooks.read(shim.books().resolve("DIE-LAYOUT"));

      assertThat(read.dieId()).isEqualTo("DIE-LAYOUT");
      assertThat(read.memoryUsedBytes()).isEqualTo(12_345);
      assertThat(read.launches()).isEqualTo(1);
      assertThat(read.busyNanos()).isGreaterThanOrEqualTo(1_000_000);
      assertThat(read.processes())
          .containsExactly(
              new ContainerBooks.ProcessSlot(
                  read.processes().get(0).slot(), (int) process.pid(), 12_345));
      // The shim paced the launch through the Java-made region and handed the token back.
      assertThat(
              ByteBuffer.wrap(Files.readAllBytes(region))
                  .order(ByteOrder.LITTLE_ENDIAN)
                  .getLong(ChipRegion.TOKEN_OFFSET))
          .isZero();
      process.getOutputStream().close();
      assertThat(out.readLine()).isEqualTo("ok   test_region_layout");
    } finally {
      process.destroy();
      assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
