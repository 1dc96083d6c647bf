package org.vnpu.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Option;

/**
 * The {@code --metrics} option: exporters whose {@code /metrics} say what the chips and containers
 * really use (docs/metrics.md). Read once per command, each within {@value #TIMEOUT_SECONDS} s and
 * {@value #MAX_BYTES} bytes.
 */
final class MetricsOption {

  static final int TIMEOUT_SECONDS = 5;
  static final int MAX_BYTES = 16 << 20;

  @Option(
      names = "--metrics",
      paramLabel = "URL",
      split = ",",
      description =
          "An exporter's /metrics URL (repeat or separate by commas, one per node): adds the"
              + " measured AI Core share and device memory in use.")
  List<URI> urls = List.of();

  /** A chip as its exporter measured it. */
  record ChipUse(double aiCoreRatio, long memoryUsedBytes) {}

  /** One sample of the Prometheus text format. */
  record Sample(String name, Map<String, String> labels, double value) {}

  private List<Sample> samples;

  /** Measured AI Core share of the pod's vNPUs by {@code container/chip}; empty without URLs. */
  Map<String, Double> containerShares(String namespace, String pod) {
    Map<String, Double> shares = new HashMap<>();
    for (Sample sample : samples()) {
      if (sample.name().equals("vnpu_container_aicore_share_ratio")
          && namespace.equals(sample.labels().get("namespace"))
          && pod.equals(sample.labels().get("pod"))) {
        shares.put(
            sample.labels().get("container") + "/" + sample.labels().get("chip"), sample.value());
      }
    }
    return shares;
  }

  /**
   * What the vNPU containers on each chip used, by {@code node/chip}: the AI Core share they held
   * between the exporter's last two scrapes and the device memory they hold, summed; empty without
   * URLs. (The driver's own utilisation counts every process on the chip, and a simulated driver
   * reports what its inventory file says.)
   */
  Map<String, ChipUse> chipUse() {
    Map<String, Double> aiCore = new HashMap<>();
    Map<String, Double> memory = new HashMap<>();
    for (Sample sample : samples()) {
      String chip = sample.labels().get("node") + "/" + sample.labels().get("chip");
      switch (sample.name()) {
        case "vnpu_container_aicore_share_ratio" -> aiCore.merge(chip, sample.value(), Double::sum);
        case "vnpu_container_memory_used_bytes" -> memory.merge(chip, sample.value(), Double::sum);
        default -> {}
      }
    }
    Map<String, ChipUse> use = new HashMap<>();
    aiCore.forEach(
        (chip, ratio) ->
            use.put(chip, new ChipUse(ratio, memory.getOrDefault(chip, 0.0).longValue())));
    return use;
  }

  private List<Sample> samples() {
    if (samples == null) {
      List<Sample> all = new ArrayList<>();
      HttpClient http =
          HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(TIMEOUT_SECONDS)).build();
      for (URI url : urls) {
        all.addAll(parse(url.toString(), fetch(http, url)));
      }
      samples = all;
    }
    return samples;
  }

  private static String fetch(HttpClient http, URI url) {
    try {
      HttpResponse<InputStream> response =
          http.send(
              HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(TIMEOUT_SECONDS)).build(),
              HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream body = response.body()) {
        byte[] bytes = readBefore(body, url);
        if (response.statusCode() != 200) {
          throw new InputException(
              "--metrics " + url + ": HTTP " + response.statusCode() + " instead of 200");
        }
        if (bytes.length > MAX_BYTES) {
          throw new InputException("--metrics " + url + ": more than " + MAX_BYTES + " bytes");
        }
        return new String(bytes, StandardCharsets.UTF_8);
      }
    } catch (IOException | IllegalArgumentException e) {
      throw new InputException("--metrics " + url + ": cannot read it: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InputException("--metrics " + url + ": interrupted");
    }
  }

  /**
   * At most {@value #MAX_BYTES} + 1 bytes of {@code body}, read within {@value #TIMEOUT_SECONDS} s:
   * the request's timeout ends when the headers arrive, and a body that trickles would hold the
   * command forever; at the deadline the body is closed, which ends the read.
   */
  private static byte[] readBefore(InputStream body, URI url) throws IOException {
    AtomicBoolean late = new AtomicBoolean();
    CompletableFuture<Void> deadline =
        CompletableFuture.runAsync(
            () -> {
              late.set(true);
              try {
                body.close();
              } catch (IOException e) {
                // the read fails either way
              }
            },
            CompletableFuture.delayedExecutor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
    try {
      return body.readNBytes(MAX_BYTES + 1);
    } catch (IOException e) {
      if (late.get()) {
        throw new InputException(
            "--metrics " + url + ": its body did not arrive within " + TIMEOUT_SECONDS + " s");
      }
      throw e;
    } finally {
      deadline.cancel(false);
    }
  }

  /**
   * The samples of a Prometheus text exposition ({@code name{label="value",...} value
   * [timestamp]}), without comments and blank lines; a line that does not parse is refused, by
   * name.
   */
  static List<Sample> parse(String source, String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      Sample sample = sample(line);
      if (sample == null) {
        throw new InputException(
            "--metrics " + source + ": not the Prometheus text format: " + abbreviated(line));
      }
      samples.add(sample);
    }
    return samples;
  }

  private static Sample sample(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
      i++;
    }
    String name = line.substring(0, i);
    Map<String, String> labels = new LinkedHashMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (i < line.length() && line.charAt(i) != '}') {
        int equals = line.indexOf("=\"", i);
        if (equals < 0) {
          return null;
        }
        String key = line.substring(i, equals).trim();
        StringBuilder value = new StringBuilder();
        int j = equals + 2;
        for (; j < line.length() && line.charAt(j) != '"'; j++) {
          char c = line.charAt(j);
          if (c == '\\' && j + 1 < line.length()) {
            char escaped = line.charAt(++j);
            value.append(escaped == 'n' ? '\n' : escaped);
          } else {
            value.append(c);
          }
        }
        if (j >= line.length()) {
          return null;
        }
        labels.put(key, value.toString());
        i = j + 1;
        if (i < line.length() && line.charAt(i) == ',') {
          i++;
        }
      }
      i++;
    }
    String[] rest = line.substring(Math.min(i, line.length())).trim().split("\\s+");
    try {
      return name.isEmpty()
          ? null
          : new Sample(name, labels, Double.parseDouble(rest[0].replace("Inf", "Infinity")));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String abbreviated(String line) {
    return line.length() > 80 ? line.substring(0, 80) + "..." : line;
  }
}
