package org.vnpu.api.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.LogLevel;
import org.vnpu.api.ShimContract;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.api.payload.ShimConfig;
import org.vnpu.api.payload.ShimDevice;
import org.vnpu.testkit.GoldenFile;

class ShimConfigFormatTest {

  private static final String DIE = "0A1B2C3D-00000000-00000000-00000000-00000001";

  private final ShimConfigFormat format = new ShimConfigFormat();

  static ShimConfig config() {
    return new ShimConfig(
        "6f1c0d52-2b7e-4c1a-9d59-3f0e8c1b7a10",
        "serving",
        "bert-0",
        "model",
        ShimContract.CONTAINER_BOOKS,
        LogLevel.INFO,
        null,
        List.of(
            new ShimDevice(DIE, 8L << 30, 30, AiCorePolicy.ELASTIC, ShimContract.chipRegion(DIE))));
  }

  @Test
  void matchesGoldenFileAndReadsBack() throws IOException {
    GoldenFile.assertMatches("vnpu.conf", format.write(config()));
    assertThat(format.read(GoldenFile.read("vnpu.conf"))).isEqualTo(config());
  }

  @Test
  void toleratesCommentsBlankLinesAndOrder() {
    String text = format.write(config());
    String[] lines = text.split("\n");
    StringBuilder reversed = new StringBuilder("\n# reordered\n");
    for (int i = lines.length - 1; i >= 0; i--) {
      reversed.append(lines[i]).append("\n\n");
    }
    assertThat(format.read(reversed.toString())).isEqualTo(config());
  }

  @Test
  void refusesWhatTheShimCouldMisread() {
    String good = format.write(config());
    assertProblem(good.replace("version=3", "version=2"), "unsupported version 2");
    assertProblem(
        good.replace("priority=online", "priority=urgent"),
        "priority=urgent is not one of online, offline");
    assertProblem(
        good.replace("priority=online", "priority=offline"),
        "missing key offline.max_kernels_in_flight");
    assertProblem(
        good + "offline.max_kernels_in_flight=1\n", "unknown key offline.max_kernels_in_flight");
    assertProblem(
        good.replace("priority=online", "priority=offline\noffline.max_kernels_in_flight=17"),
        "maxKernelsInFlight=17 is out of range 0..16");
    assertProblem(good.replace("container=model\n", ""), "missing key container");
    assertProblem(good + "container=other\n", "repeats key container");
    assertProblem(good + "device.1.cores=5\n", "unknown key device.1.cores");
    assertProblem(good + "garbage\n", "is not key=value: garbage");
    assertProblem(
        good.replace("memory_bytes=8589934592", "memory_bytes=8G"),
        "device.0.memory_bytes=8G is not a whole number");
    assertProblem(
        good.replace("policy=elastic", "policy=greedy"),
        "device.0.policy=greedy is not one of fixed-share, elastic, best-effort");
    assertProblem(good.replace("cores=30", "cores=130"), "cores=130 is out of range 0..100");
    assertProblem(good.replace("devices=1", "devices=0"), "devices=0 is out of range 1..64");
  }

  @Test
  void offlineContainersCarryTheirKernelCap() {
    ShimConfig config = config();
    ShimConfig offline =
        new ShimConfig(
            config.podUid(),
            config.podNamespace(),
            config.podName(),
            config.container(),
            config.booksDirectory(),
            config.logLevel(),
            new OfflineWork(2),
            config.devices());
    String text = format.write(offline);
    assertThat(text).contains("priority=offline\noffline.max_kernels_in_flight=2\n");
    assertThat(format.read(text)).isEqualTo(offline);
  }

  private void assertProblem(String text, String message) {
    assertThatThrownBy(() -> format.read(text))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessageStartingWith("vnpu.conf: ")
        .hasMessageContaining(message);
  }
}
