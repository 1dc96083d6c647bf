package org.vnpu.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;

/** Readiness checks of the components, and the free ports they listen on. */
public final class Probes {

  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private Probes() {}

  /** A port nothing listens on now (the component that takes it may lose a race; rarely). */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  /** Whether {@code url} answers 200, over {@code tls} when it is https (null for http). */
  public static BooleanSupplier ok(String url, SSLContext tls) {
    // HTTP/1.1: Go's servers answer the JDK 17 client's HTTP/2 preface on some ports with GOAWAY.
    HttpClient.Builder builder =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT);
    HttpClient client = (tls == null ? builder : builder.sslContext(tls)).build();
    return () -> {
      try {
        return client
                .send(
                    HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.discarding())
                .statusCode()
            == 200;
      } catch (IOException e) {
        return false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    };
  }
}
