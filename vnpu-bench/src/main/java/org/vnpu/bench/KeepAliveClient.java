package org.vnpu.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The leanest HTTP/1.1 client a load generator needs: one kept-alive socket, a request written in
 * one piece, the answer read by its Content-Length (or chunks). So that the benchmarks of the
 * extender measure the server, not the client (the JDK clients cost more per call than the server
 * does, ADR 0006).
 */
final class KeepAliveClient implements AutoCloseable {

  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;
  private final String host;

  KeepAliveClient(int port) throws IOException {
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.connect(new InetSocketAddress("127.0.0.1", port));
    out = socket.getOutputStream();
    in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
    host = "127.0.0.1:" + port;
  }

  /** POSTs {@code body} to {@code path}; the answer's body, or IOException on a non-200. */
  byte[] post(String path, byte[] body) throws IOException {
    byte[] head =
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: "
                + host
                + "\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] request = new byte[head.length + body.length];
    System.arraycopy(head, 0, request, 0, head.length);
    System.arraycopy(body, 0, request, head.length, body.length);
    out.write(request);
    out.flush();
    String status = line();
    if (!status.startsWith("HTTP/1.1 200")) {
      throw new IOException(path + " answered " + status);
    }
    int length = -1;
    boolean chunked = false;
    for (String header = line(); !header.isEmpty(); header = line()) {
      String lower = header.toLowerCase(Locale.ROOT);
      if (lower.startsWith("content-length:")) {
        length = Integer.parseInt(header.substring(15).strip());
      } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
        chunked = true;
      }
    }
    if (!chunked) {
      return in.readNBytes(length);
    }
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    for (int size = Integer.parseInt(line().strip(), 16);
        size > 0;
        size = Integer.parseInt(line().strip(), 16)) {
      answer.write(in.readNBytes(size));
      line();
    }
    line();
    return answer.toByteArray();
  }

  private String line() throws IOException {
    StringBuilder line = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("connection closed mid-answer");
      }
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
