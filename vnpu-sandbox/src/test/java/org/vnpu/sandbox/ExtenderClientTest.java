package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.vnpu.kube.ExtenderCertificates;

/**
 * The sandbox's clients of the extender time out as the schedulers' do: kube-scheduler's ({@code
 * pkg/scheduler/extender.go}, {@code NewHTTPExtender}) after one timeout of 5 s for the whole
 * exchange, the TLS handshake included (a client that gave up on a handshake after 2 s left the
 * demo's DRA pods unranked on a busy machine); Volcano's after 1 s, where it used to wait 10 s and
 * so accepted answers that Volcano would have given up on.
 */
class ExtenderClientTest {

  private final ExtenderCertificates certificates =
      ExtenderCertificates.issue(List.of("127.0.0.1"), Instant.now());

  /** kube-scheduler's client of the extender listening on {@code listener}, over TLS. */
  private ExtenderClient client(ServerSocket listener) {
    return ExtenderClient.kubeScheduler(
        "https://127.0.0.1:" + listener.getLocalPort(), certificates.clientContext());
  }

  @Test
  void kubeSchedulersClientWaitsOutASlowTlsHandshakeWithinItsTimeout() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread server =
          new Thread(
              () -> answerLate(listener, certificates.serverContext(), Duration.ofSeconds(3)));
      server.setDaemon(true);
      server.start();

      JsonNode answer = client(listener).post("/kube/prioritize", Map.of("NodeNames", List.of()));

      assertThat(answer.isArray()).isTrue();
    }
  }

  @Test
  void aHandshakeThatNeverComesFailsAtTheTimeoutNotLater() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // the kernel completes the TCP handshake; nobody ever answers the TLS one
      ExtenderClient client = client(listener);
      long started = System.nanoTime();

      assertThatThrownBy(() -> client.post("/kube/prioritize", Map.of()))
          .isInstanceOf(IOException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isBetween(ExtenderClient.KUBE_SCHEDULER_TIMEOUT, Duration.ofSeconds(8));
    }
  }

  @Test
  void volcanosClientGivesUpAfterItsOneSecondAsVolcanosPluginDoes() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // the kernel completes the TCP handshake; nobody ever answers the request
      ExtenderClient client = ExtenderClient.volcano("http://127.0.0.1:" + listener.getLocalPort());
      long started = System.nanoTime();

      assertThatThrownBy(() -> client.post("/volcano/allocateFunc", Map.of()))
          .isInstanceOf(IOException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isBetween(ExtenderClient.VOLCANO_TIMEOUT, Duration.ofSeconds(3));
    }
  }

  /**
   * Accepts one connection, starts its TLS handshake only after {@code delay}, answers {@code []}.
   */
  private static void answerLate(ServerSocket listener, SSLContext tls, Duration delay) {
    try (Socket plain = listener.accept()) {
      Thread.sleep(delay.toMillis());
      try (SSLSocket socket =
          (SSLSocket)
              tls.getSocketFactory()
                  .createSocket(
                      plain, plain.getInetAddress().getHostAddress(), plain.getPort(), true)) {
        socket.setUseClientMode(false);
        BufferedReader in =
            new BufferedReader(
                new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        int length = 0;
        for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
          if (line.toLowerCase().startsWith("content-length:")) {
            length = Integer.parseInt(line.substring("content-length:".length()).trim());
          }
        }
        in.skip(length);
        OutputStream out = socket.getOutputStream();
        out.write(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]"
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
