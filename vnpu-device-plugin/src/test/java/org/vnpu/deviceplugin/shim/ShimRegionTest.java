package org.vnpu.deviceplugin.shim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
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
import org.vnpu.api.region.SharedRegion;

/**
 * Both halves of the shim contract across languages: the config the device plugin writes (Java) is
 * the config the real shim (C) runs with, and the region the shim writes is the region the Java
 * reader reads.
 */
class ShimRegionTest {

  private static final Path BUILD = Path.of(System.getProperty("vnpu.libvnpu.build"));

  @TempDir Path directory;

  @Test
  void theShimRunsWithAJavaWrittenConfigAndJavaReadsItsRegion() throws Exception {
    Path chip = Files.createDirectories(directory.resolve("chip"));
    Path config = directory.resolve("vnpu.conf");
    Files.writeString(
        config,
        new ShimConfigFormat()
            .write(
                new ShimConfig(
                    "0b7c-uid",
                    "serving",
                    "bert-0",
                    "model",
                    LogLevel.WARN,
                    List.of(
                        new ShimDevice(
                            "DIE-LAYOUT",
                            1L << 30,
                            30,
                            AiCorePolicy.FIXED_SHARE,
                            chip.toString())))));
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

      SharedRegion region = SharedRegion.read(chip.resolve(ShimContract.REGION_FILE));

      assertThat(region.dieId()).isEqualTo("DIE-LAYOUT");
      assertThat(region.periodMicros()).isEqualTo(100_000);
      assertThat(region.containers()).hasSize(1);
      SharedRegion.ContainerSlot container = region.containers().get(0);
      assertThat(container.podUid()).isEqualTo("0b7c-uid");
      assertThat(container.container()).isEqualTo("model");
      assertThat(container.policy()).isEqualTo(AiCorePolicy.FIXED_SHARE);
      assertThat(container.cores()).isEqualTo(30);
      assertThat(container.memoryQuotaBytes()).isEqualTo(1L << 30);
      assertThat(container.memoryUsedBytes()).isEqualTo(12_345);
      assertThat(container.launches()).isEqualTo(1);
      assertThat(container.busyNanos()).isGreaterThanOrEqualTo(1_000_000);
      assertThat(region.processes())
          .containsExactly(
              new SharedRegion.ProcessSlot(
                  region.processes().get(0).slot(), (int) process.pid(), 0, 12_345));
      process.getOutputStream().close();
      assertThat(out.readLine()).isEqualTo("ok   test_region_layout");
    } finally {
      process.destroy();
      assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
