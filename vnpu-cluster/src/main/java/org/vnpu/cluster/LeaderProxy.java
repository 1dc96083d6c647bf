package org.vnpu.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kube.DaemonThreads;

/**
 * Stands for the chart's scheduler Service, which selects the pod the leader labels: a TCP port on
 * loopback whose connections go, byte for byte, to the port of whichever replica holds the leader's
 * Lease when the connection is made (TLS passes through: the replica's certificate is what the
 * client checks). With no leader, a connection is closed at once, as a Service without endpoints
 * refuses it.
 */
final class LeaderProxy implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderProxy.class);

  private final String name;
  private final ServerSocket server;
  private final Supplier<OptionalInt> leaderPort;
  private final ExecutorService threads;

  /**
   * @param leaderPort the port of the replica leading now, empty when none does
   */
  LeaderProxy(String name, int port, Supplier<OptionalInt> leaderPort) throws IOException {
    this.name = name;
    this.server = new ServerSocket(port, 128, InetAddress.getLoopbackAddress());
    this.leaderPort = leaderPort;
    this.threads = Executors.newCachedThreadPool(DaemonThreads.named("vnpu-leader-proxy-" + name));
    threads.execute(this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      threads.execute(() -> forward(client));
    }
  }

  private void forward(Socket client) {
    OptionalInt target = leaderPort.get();
    if (target.isEmpty()) {
      LOG.debug("{}: no leader; connection refused", name);
      close(client);
      return;
    }
    Socket upstream;
    try {
      upstream = new Socket(InetAddress.getLoopbackAddress(), target.getAsInt());
    } catch (IOException e) {
      LOG.debug("{}: the leader's port {} refused: {}", name, target.getAsInt(), e.toString());
      close(client);
      return;
    }
    threads.execute(() -> pump(client, upstream));
    pump(upstream, client);
  }

  /** Copies {@code from} to {@code to} until either ends, then closes both. */
  private static void pump(Socket from, Socket to) {
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      in.transferTo(out);
    } catch (IOException e) {
      // one side went away
    } finally {
      close(from);
      close(to);
    }
  }

  private static void close(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // nothing to do
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      LOG.debug("{}: {}", name, e.toString());
    }
    threads.shutdownNow();
  }
}
