package org.vnpu.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.scheduler.ExtenderVerb.Answer;
import org.vnpu.scheduler.ExtenderVerb.BadRequest;

/**
 * The two extender protocols over HTTP, served by Jetty (ADR 0006): {@link KubeProtocol} under
 * {@code /kube/} and {@link VolcanoProtocol} under {@code /volcano/}, plus {@code /healthz}, {@code
 * /readyz} and {@code /metrics}. With mutual TLS ({@link Listeners}), {@code /kube/} answers only
 * on the TLS port, to clients with a certificate the server trusts; on plain HTTP it answers 403. A
 * body that is not JSON, lacks the pod or exceeds its verb's limit gets HTTP 400 or 413 with the
 * reason and changes nothing. Limits are per verb: 10 MiB where a request may carry whole Node
 * objects (kube-scheduler without {@code nodeCacheCapable}, Volcano's prioritize), 1 MiB where it
 * carries a pod and one node, 64 KiB for {@code /kube/bind}. Parsed requests take about 30 times
 * their size in memory, so all requests in flight share a budget of a third of the heap; a request
 * that cannot get its share within 5 s gets HTTP 503, as does one that runs the JVM out of memory.
 * {@code /healthz} answers 503 when the scheduler has not been able to decide for 3 s.
 */
public final class ExtenderServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration LIVENESS = Duration.ofSeconds(3);

  private final Scheduler scheduler;
  private final Leadership leadership;
  private final Map<String, ExtenderVerb> verbs = new HashMap<>();
  private final ExtenderMetrics metrics;
  private final RequestBudget budget = RequestBudget.ofHeap(3);
  private Server server;

  /** What one call gets back; refused when a 200 answer says no. */
  private record Reply(int status, String body, String type, boolean refused) {
    Reply(int status, String body, String type) {
      this(status, body, type, false);
    }
  }

  private ExtenderServer(Scheduler scheduler, KubernetesClient client, Leadership leadership) {
    this.scheduler = scheduler;
    this.leadership = leadership;
    this.metrics = new ExtenderMetrics(scheduler);
    ExtenderRequests requests = new ExtenderRequests(client);
    verbs.putAll(new KubeProtocol(scheduler, requests, leadership).verbs());
    verbs.putAll(new VolcanoProtocol(scheduler, requests, leadership).verbs());
  }

  /** Serves on {@code listeners}. */
  public static ExtenderServer start(
      Listeners listeners, Scheduler scheduler, KubernetesClient client, Leadership leadership)
      throws IOException {
    ExtenderServer extender = new ExtenderServer(scheduler, client, leadership);
    QueuedThreadPool threads = new QueuedThreadPool(16, 4);
    threads.setName("vnpu-extender-http");
    threads.setDaemon(true);
    Server server = new Server(threads);
    server.addConnector(connector(server, listeners.plain(), new ServerConnector(server)));
    if (listeners.mutualTls()) {
      SslContextFactory.Server tls = new SslContextFactory.Server();
      tls.setSslContext(listeners.tlsContext());
      tls.setNeedClientAuth(true);
      server.addConnector(
          connector(
              server,
              listeners.tls(),
              new ServerConnector(
                  server, new SslConnectionFactory(tls, "http/1.1"), new HttpConnectionFactory())));
    }
    server.setHandler(
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback)
              throws IOException {
            String path = request.getHttpURI().getPath();
            boolean refused =
                listeners.mutualTls()
                    && path.startsWith(KubeProtocol.PREFIX)
                    && !request.isSecure();
            Reply reply =
                refused
                    ? new Reply(
                        403,
                        path
                            + ": kube-scheduler's verbs are served only over TLS with a client"
                            + " certificate, on port "
                            + extender.tlsPort()
                            + "\n",
                        "text/plain")
                    : extender.reply(
                        request.getMethod(),
                        path,
                        request.getLength(),
                        Content.Source.asInputStream(request));
            response.setStatus(reply.status());
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, reply.type() + "; charset=utf-8");
            if (refused) {
              // Its body is not read: the connection closes after the answer, and says so, or a
              // client would send its next request on a connection Jetty then drops unanswered.
              response.getHeaders().put(HttpHeader.CONNECTION, "close");
            }
            Content.Sink.write(response, true, reply.body(), callback);
            return true;
          }
        });
    try {
      server.start();
    } catch (Exception e) {
      throw new IOException("cannot serve on " + listeners + ": " + e.getMessage(), e);
    }
    extender.server = server;
    return extender;
  }

  private static ServerConnector connector(
      Server server, InetSocketAddress address, ServerConnector connector) {
    connector.setHost(address.getHostString());
    connector.setPort(address.getPort());
    return connector;
  }

  /** The plain HTTP port. */
  public int port() {
    return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }

  /** The TLS port, or -1 without TLS. */
  public int tlsPort() {
    return server.getConnectors().length > 1
        ? ((ServerConnector) server.getConnectors()[1]).getLocalPort()
        : -1;
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("stopping the extender server: {}", e.toString());
    }
  }

  private Reply reply(String method, String path, long length, InputStream in) {
    if (path.equals("/healthz")) {
      return scheduler.responsive(LIVENESS)
          ? new Reply(200, "ok\n", "text/plain")
          : new Reply(
              503,
              "the scheduler has not been able to decide for " + LIVENESS.toSeconds() + " s\n",
              "text/plain");
    }
    if (path.equals("/readyz")) {
      return new Reply(200, leadership.isLeader() ? "leader\n" : "follower\n", "text/plain");
    }
    if (path.equals("/metrics")) {
      return new Reply(200, metrics.text(), "text/plain; version=0.0.4");
    }
    ExtenderVerb verb = verbs.get(path);
    if (verb == null) {
      return new Reply(404, path + ": no such verb\n", "text/plain");
    }
    if (!"POST".equals(method)) {
      return new Reply(405, "use POST\n", "text/plain");
    }
    long started = System.nanoTime();
    Reply reply = call(path, verb, length, in);
    metrics.record(path, outcome(reply), System.nanoTime() - started);
    return reply;
  }

  private Reply call(String path, ExtenderVerb verb, long length, InputStream in) {
    if (length > verb.maxBody() && verb.maxBody() > 0) {
      drain(in, length);
      return tooLarge(path, verb);
    }
    long expected = length >= 0 ? length : verb.maxBody();
    try (RequestBudget.Share share = budget.take(expected)) {
      if (share == null) {
        return new Reply(
            503,
            path + ": too many large requests in flight; " + budget.describe() + "\n",
            "text/plain");
      }
      if (verb.maxBody() == 0) {
        in.transferTo(OutputStream.nullOutputStream());
        return answered(verb, JSON.createObjectNode());
      }
      byte[] body = in.readNBytes(verb.maxBody() + 1);
      if (body.length > verb.maxBody()) {
        return tooLarge(path, verb);
      }
      JsonNode request;
      try {
        request = JSON.readTree(body);
      } catch (JsonProcessingException e) {
        return new Reply(
            400, path + ": the body is not JSON: " + e.getOriginalMessage() + "\n", "text/plain");
      }
      return answered(verb, request);
    } catch (BadRequest e) {
      return new Reply(400, path + ": " + e.getMessage() + "\n", "text/plain");
    } catch (OutOfMemoryError e) {
      LOG.error("{} ran the JVM out of memory; answered 503", path);
      return new Reply(503, path + ": out of memory serving this request\n", "text/plain");
    } catch (IOException | RuntimeException e) {
      LOG.error("{} failed", path, e);
      return new Reply(500, path + ": " + e + "\n", "text/plain");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Reply(503, path + ": interrupted\n", "text/plain");
    }
  }

  private static Reply answered(ExtenderVerb verb, JsonNode request)
      throws BadRequest, JsonProcessingException {
    Answer answer = verb.handler().answer(request);
    return new Reply(
        200, JSON.writeValueAsString(answer.body()), "application/json", answer.refused());
  }

  /**
   * Reads and drops a body refused unread, up to 64 MiB, so that the client, still sending, gets
   * the answer rather than a reset connection; a larger one is cut off.
   */
  private static void drain(InputStream in, long length) {
    try {
      in.skipNBytes(Math.min(length, 64L << 20));
    } catch (IOException e) {
      LOG.debug("the refused body ended early: {}", e.toString());
    }
  }

  private static Reply tooLarge(String path, ExtenderVerb verb) {
    return new Reply(
        413, path + ": request body exceeds " + (verb.maxBody() >> 10) + " KiB\n", "text/plain");
  }

  private static ExtenderMetrics.Outcome outcome(Reply reply) {
    if (reply.status() >= 500) {
      return ExtenderMetrics.Outcome.ERROR;
    }
    if (reply.status() >= 400) {
      return ExtenderMetrics.Outcome.BAD_REQUEST;
    }
    return reply.refused() ? ExtenderMetrics.Outcome.REFUSED : ExtenderMetrics.Outcome.OK;
  }
}
