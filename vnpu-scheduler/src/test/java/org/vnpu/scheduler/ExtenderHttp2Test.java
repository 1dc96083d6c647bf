package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.kube.ExtenderCertificates;

/**
 * kube-scheduler's HTTP/2 connection to the extender survives what Go's client sends under load.
 * Go's client returns flow-control credit for a response body as it reads it (net/http's bundled
 * http2, {@code transportResponseBody.Read}), often after the server closed the stream. Jetty
 * counts each such WINDOW_UPDATE for a closed stream against a rate limit ({@code
 * HTTP2Session.onWindowUpdate}), 128 a second by default, and past it closes the connection with
 * ENHANCE_YOUR_CALM: in b1 of {@code vnpu throughput} at 1,000 nodes it closed kube-scheduler's
 * connection a dozen times, and 153 bindings in flight failed. The frames are written by hand here,
 * as a client on the wire sends them.
 */
@EnableKubernetesMockClient(crud = true)
class ExtenderHttp2Test {

  private static final int DATA = 0;
  private static final int HEADERS = 1;
  private static final int SETTINGS = 4;
  private static final int PING = 6;
  private static final int GOAWAY = 7;
  private static final int WINDOW_UPDATE = 8;
  private static final int END_STREAM = 0x1;
  private static final int ACK = 0x1;
  private static final int END_HEADERS = 0x4;

  KubernetesClient client;

  private ExtenderCertificates certificates;
  private SchedulerService service;

  @BeforeEach
  void start() throws IOException {
    certificates =
        ExtenderCertificates.bootstrap(client, "vnpu", "vnpu-extender-tls", List.of("127.0.0.1"));
    service = MutualTlsExtender.start(client, certificates);
  }

  @AfterEach
  void stop() {
    service.close();
    client.close();
  }

  @Test
  void creditReturnedForClosedStreamsInABurstKeepsTheConnection() throws IOException {
    try (SSLSocket socket = h2()) {
      OutputStream out = socket.getOutputStream();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      preface(out);
      // What b1 at 1,000 nodes sends in about a second: some 40 pods, about five late credits
      // each (their filter and prioritize answers, returned 4 KiB at a time).
      int streams = 200;
      ByteBuffer credit = ByteBuffer.allocate(streams * 13);
      for (int i = 0; i < streams; i++) {
        int stream = 2 * i + 1;
        frame(out, HEADERS, END_HEADERS | END_STREAM, stream, healthz());
        assertThat(readUntilEndOf(stream, in, out)).as("stream %d", stream).isEqualTo(-1);
        credit.put(header(4, WINDOW_UPDATE, 0, stream)).putInt(1);
      }
      out.write(credit.array());
      frame(out, PING, 0, 0, new byte[8]);

      assertThat(readUntilEndOf(0, in, out))
          .as("the error code of a GOAWAY, -1 for the PING's answer")
          .isEqualTo(-1);
    }
  }

  @Test
  void aFloodOfCreditForAClosedStreamStillClosesTheConnection() throws IOException {
    try (SSLSocket socket = h2()) {
      OutputStream out = socket.getOutputStream();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      preface(out);
      frame(out, HEADERS, END_HEADERS | END_STREAM, 1, healthz());
      assertThat(readUntilEndOf(1, in, out)).isEqualTo(-1);
      // Three times what the limit allows in a second, as a client that floods would send.
      int credits = 3000;
      ByteBuffer flood = ByteBuffer.allocate(credits * 13);
      for (int i = 0; i < credits; i++) {
        flood.put(header(4, WINDOW_UPDATE, 0, 1)).putInt(1);
      }
      out.write(flood.array());
      out.flush();

      assertThat(readUntilEndOf(0, in, out))
          .as("GOAWAY with ENHANCE_YOUR_CALM (11), however trusted the client's certificate")
          .isEqualTo(11);
    }
  }

  private static void preface(OutputStream out) throws IOException {
    out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    frame(out, SETTINGS, 0, 0, new byte[0]);
  }

  /** A TLS connection to the extender's port with kube-scheduler's certificate, speaking h2. */
  private SSLSocket h2() throws IOException {
    SSLSocket socket =
        (SSLSocket)
            certificates
                .clientContext()
                .getSocketFactory()
                .createSocket("127.0.0.1", service.tlsPort());
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setApplicationProtocols(new String[] {"h2"});
    socket.setSSLParameters(parameters);
    socket.setSoTimeout(10_000);
    socket.setTcpNoDelay(true);
    socket.startHandshake();
    assertThat(socket.getApplicationProtocol()).isEqualTo("h2");
    return socket;
  }

  /**
   * Reads frames until the answer on {@code stream} ends (stream 0: until the PING's answer),
   * acknowledging the server's SETTINGS; a GOAWAY's error code, or -1.
   */
  private static int readUntilEndOf(int stream, DataInputStream in, OutputStream out)
      throws IOException {
    while (true) {
      int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
      int type = in.readUnsignedByte();
      int flags = in.readUnsignedByte();
      int id = in.readInt() & 0x7fffffff;
      byte[] payload = in.readNBytes(length);
      if (type == GOAWAY) {
        return ByteBuffer.wrap(payload, 4, 4).getInt();
      }
      if (type == SETTINGS && (flags & ACK) == 0) {
        frame(out, SETTINGS, ACK, 0, new byte[0]);
      }
      boolean ended =
          stream == 0
              ? type == PING && (flags & ACK) != 0
              : id == stream && (type == DATA || type == HEADERS) && (flags & END_STREAM) != 0;
      if (ended) {
        return -1;
      }
    }
  }

  /** GET /healthz, in HPACK: the static table's :method GET and :scheme https, two literals. */
  private static byte[] healthz() {
    ByteBuffer block = ByteBuffer.allocate(64);
    block.put((byte) 0x82).put((byte) 0x87);
    literal(block, 4, "/healthz");
    literal(block, 1, "127.0.0.1");
    return Arrays.copyOf(block.array(), block.position());
  }

  /** A literal header field without indexing, its name the static table's {@code index}. */
  private static void literal(ByteBuffer block, int index, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
    block.put((byte) index).put((byte) bytes.length).put(bytes);
  }

  private static void frame(OutputStream out, int type, int flags, int stream, byte[] payload)
      throws IOException {
    out.write(
        ByteBuffer.allocate(9 + payload.length)
            .put(header(payload.length, type, flags, stream))
            .put(payload)
            .array());
    out.flush();
  }

  private static byte[] header(int length, int type, int flags, int stream) {
    return ByteBuffer.allocate(9)
        .put((byte) (length >>> 16))
        .putShort((short) length)
        .put((byte) type)
        .put((byte) flags)
        .putInt(stream)
        .array();
  }
}
