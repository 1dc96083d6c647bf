package org.vnpu.scheduler;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * One listening port of the extender, with threads, connections and a request budget of its own, so
 * that clients of one port cannot starve the other (issue 48: the plain port's clients took the
 * budget kube-scheduler's mutual-TLS verbs needed). Bodies are read as they arrive ({@link
 * BodyReader}); a thread is taken only to answer. The port counts what it answers, so that liveness
 * can tell a port that has stopped answering ({@link #stalled}).
 */
final class ExtenderPort implements AutoCloseable {

  /** What one call gets back; refused when a 200 answer says no; close ends the connection. */
  record Reply(int status, String body, String type, boolean refused, boolean close) {
    Reply(int status, String body, String type) {
      this(status, body, type, false, false);
    }

    static Reply text(int status, String message) {
      return new Reply(status, message + "\n", "text/plain");
    }
  }

  /** What the port serves. */
  interface Routes {
    /**
     * The answer to a request that reads no body (health, metrics, refusals), or null when {@code
     * path} names a verb, whose body is read and passed to {@link #answer}.
     */
    Reply immediate(String method, String path, boolean secure);

    /** The largest body the verb at {@code path} reads (0: none, the body is read and dropped). */
    int maxBody(String path);

    /** Memory a byte of the body of the verb at {@code path} takes ({@link RequestBudget}). */
    int expansion(String path);

    /** The verb's answer to {@code body}. */
    Reply answer(String path, InputStream body);

    /** A request to {@code path} refused before its body was read whole (4xx or 503). */
    void refused(String path, int status);
  }

  private final String name;
  private final Routes routes;
  private final RequestBudget budget;
  private final QueuedThreadPool threads;
  private final Server server;
  private final AtomicInteger answering = new AtomicInteger();
  private final AtomicLong lastAnswered = new AtomicLong(System.nanoTime());

  /**
   * @param name for thread names and messages ("plain", "tls")
   * @param maxThreads the threads answering on this port
   * @param maxConnections connections beyond this wait to be accepted
   * @param idle a connection silent this long is closed
   * @param budget the memory this port's requests in flight may hold
   * @param protocols HTTP, or TLS then HTTP
   */
  ExtenderPort(
      String name,
      InetSocketAddress address,
      Routes routes,
      int maxThreads,
      int maxConnections,
      Duration idle,
      RequestBudget budget,
      ConnectionFactory... protocols) {
    this.name = name;
    this.routes = routes;
    this.budget = budget;
    this.threads = new QueuedThreadPool(maxThreads, 2);
    threads.setName("vnpu-extender-" + name);
    threads.setDaemon(true);
    this.server = new Server(threads);
    ServerConnector connector =
        protocols.length == 0
            ? new ServerConnector(server)
            : new ServerConnector(server, protocols);
    connector.setHost(address.getHostString());
    connector.setPort(address.getPort());
    connector.setIdleTimeout(idle.toMillis());
    server.addConnector(connector);
    server.addBean(new NetworkConnectionLimit(maxConnections, connector));
    server.setHandler(
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            serve(request, response, callback);
            return true;
          }
        });
  }

  void start() throws IOException {
    try {
      server.start();
    } catch (Exception e) {
      throw new IOException("cannot serve the " + name + " port: " + e.getMessage(), e);
    }
  }

  int localPort() {
    return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }

  /**
   * Whether requests wait (for a thread, or for their answer) and none was answered for {@code
   * within}: the port no longer serves, whatever {@code /healthz} itself gets.
   */
  boolean stalled(Duration within) {
    boolean waiting = answering.get() > 0 || threads.getQueueSize() > 0;
    return waiting && System.nanoTime() - lastAnswered.get() > within.toNanos();
  }

  String describe() {
    return name + " port " + localPort() + ": " + budget.describe();
  }

  private void serve(Request request, Response response, Callback callback) {
    String path = request.getHttpURI().getPath();
    Reply immediate = routes.immediate(request.getMethod(), path, request.isSecure());
    if (immediate != null) {
      write(response, callback, immediate);
      return;
    }
    int maxBody = routes.maxBody(path);
    long declared = request.getLength();
    boolean keep = maxBody > 0 && declared <= maxBody;
    // A body too large, or one the verb does not read, is read and dropped (charging nothing), so
    // that a client still sending gets the answer rather than a reset connection.
    int limit = keep ? maxBody : 64 << 20;
    RequestBudget.Charge charge =
        budget.open(Request.getRemoteAddr(request), routes.expansion(path));
    BodyReader.read(
        request,
        limit,
        keep,
        charge,
        new BodyReader.Outcome() {
          @Override
          public void body(InputStream body) {
            if (maxBody > 0 && !keep) {
              refuse(413, "request body exceeds " + (maxBody >> 10) + " KiB");
              return;
            }
            answering.incrementAndGet();
            try {
              write(response, callback, routes.answer(path, body));
            } finally {
              charge.close();
              answering.decrementAndGet();
              lastAnswered.set(System.nanoTime());
            }
          }

          @Override
          public void refused(int status, String reason) {
            refuse(status, reason);
          }

          private void refuse(int status, String reason) {
            charge.close();
            routes.refused(path, status);
            String detail = status == 503 ? "; " + budget.describe() : "";
            write(
                response,
                callback,
                new Reply(status, path + ": " + reason + detail + "\n", "text/plain", false, true));
          }
        });
  }

  private static void write(Response response, Callback callback, Reply reply) {
    response.setStatus(reply.status());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, reply.type() + "; charset=utf-8");
    if (reply.close()) {
      // The body was not read whole: the connection closes after the answer, and says so, or a
      // client would send its next request on a connection Jetty then drops unanswered.
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
    }
    Content.Sink.write(response, true, reply.body(), callback);
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException("stopping the " + name + " port: " + e.getMessage(), e);
    }
  }
}
