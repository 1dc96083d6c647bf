package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** The Prometheus text format as an exporter writes it; what is not that format is refused. */
class MetricsOptionTest {

  @Test
  void readsLabelsWithEscapesTimestampsAndInfinities() {
    List<MetricsOption.Sample> samples =
        MetricsOption.parse(
            "exporter",
            """
            # HELP vnpu_chip_info always 1
            # TYPE vnpu_chip_info gauge
            vnpu_chip_info{node="a2",model="910B3",note="a\\"b\\\\c\\nd"} 1
            vnpu_exporter_collect_duration_seconds_bucket{le="+Inf"} +Inf 1700000000000

            up 1
            """);

    assertThat(samples)
        .containsExactly(
            new MetricsOption.Sample(
                "vnpu_chip_info", Map.of("node", "a2", "model", "910B3", "note", "a\"b\\c\nd"), 1),
            new MetricsOption.Sample(
                "vnpu_exporter_collect_duration_seconds_bucket",
                Map.of("le", "+Inf"),
                Double.POSITIVE_INFINITY),
            new MetricsOption.Sample("up", Map.of(), 1));
  }

  @Test
  void aBodyTooLargeOrTooSlowIsRefusedWithoutWaitingForever() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/large",
        exchange -> {
          exchange.sendResponseHeaders(200, 0);
          try (OutputStream body = exchange.getResponseBody()) {
            body.write(new byte[MetricsOption.MAX_BYTES + 1]);
          }
        });
    server.createContext(
        "/slow",
        exchange -> {
          exchange.sendResponseHeaders(200, 0);
          try (OutputStream body = exchange.getResponseBody()) {
            body.write("up 1\n".getBytes(StandardCharsets.UTF_8));
            body.flush();
            Thread.sleep(30_000);
          } catch (InterruptedException | IOException e) {
            // the client hung up
          }
        });
    server.setExecutor(Executors.newCachedThreadPool());
    server.start();
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    try {
      assertThatThrownBy(() -> metrics(base + "/large").chipUse())
          .hasMessage(
              "--metrics " + base + "/large: more than " + MetricsOption.MAX_BYTES + " bytes");
      long started = System.nanoTime();
      assertThatThrownBy(() -> metrics(base + "/slow").chipUse())
          .hasMessage("--metrics " + base + "/slow: its body did not arrive within 5 s");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
    } finally {
      server.stop(0);
    }
  }

  private static MetricsOption metrics(String url) {
    MetricsOption option = new MetricsOption();
    option.urls = List.of(URI.create(url));
    return option;
  }

  @Test
  void aLineThatIsNotTheFormatIsRefusedByName() {
    assertThatThrownBy(() -> MetricsOption.parse("http://x/metrics", "<html>not found</html>"))
        .isInstanceOf(InputException.class)
        .hasMessage(
            "--metrics http://x/metrics: not the Prometheus text format: <html>not found</html>");
    assertThatThrownBy(() -> MetricsOption.parse("e", "vnpu_chip_info{node=\"a2} 1"))
        .hasMessageContaining("not the Prometheus text format");
  }
}
