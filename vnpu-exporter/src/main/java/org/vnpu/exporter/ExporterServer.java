package org.vnpu.exporter;

import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import org.vnpu.kube.DaemonThreads;

/**
 * Serves {@code /metrics} (Prometheus text, or OpenMetrics when the scraper asks for it) and {@code
 * /healthz}.
 */
public final class ExporterServer implements AutoCloseable {

  private final HttpServer server;

  private ExporterServer(HttpServer server) {
    this.server = server;
  }

  /** Starts serving on {@code address}; port 0 picks a free port. */
  public static ExporterServer start(InetSocketAddress address, PrometheusRegistry registry)
      throws IOException {
    HttpServer server = HttpServer.create(address, 16);
    server.createContext("/metrics", new MetricsHandler(registry));
    server.createContext(
        "/healthz",
        exchange -> {
          byte[] body = "ok\n".getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.setExecutor(Executors.newFixedThreadPool(2, DaemonThreads.named("vnpu-exporter-http")));
    server.start();
    return new ExporterServer(server);
  }

  /** The port it listens on. */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
