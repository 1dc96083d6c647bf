package org.vnpu.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.WindowRateControl;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.scheduler.ExtenderVerb.Answer;
import org.vnpu.scheduler.ExtenderVerb.BadRequest;

/**
 * The two extender protocols over HTTP, served by Jetty (ADR 0006): {@link KubeProtocol} under
 * {@code /kube/} and {@link VolcanoProtocol} under {@code /volcano/}, plus {@code /healthz}, {@code
 * /readyz} and {@code /metrics}. With mutual TLS ({@link Listeners}), {@code /kube/} answers only
 * on the TLS port, to clients with a certificate the server trusts; on plain HTTP it answers 403.
 * Each port has threads, connections and a request budget of its own ({@link ExtenderPort}), so a
 * client of the plain port cannot starve kube-scheduler's verbs (issue 48). A body that is not
 * JSON, lacks the pod or exceeds its verb's limit gets HTTP 400 or 413 with the reason and changes
 * nothing. Limits are per verb: 10 MiB where a request may carry whole Node objects (kube-scheduler
 * without {@code nodeCacheCapable}, Volcano's prioritize), 1 MiB where it carries a pod and one
 * node, 64 KiB for {@code /kube/bind}. Bodies are charged to their port's budget (a sixth of the
 * heap each, a quarter of it per client) as they arrive, and must arrive at 1 MiB/s after 5 s
 * ({@link BodyReader}): 503 past the budget, 408 past the time, and 503 for a request that runs the
 * JVM out of memory. {@code /healthz} answers 503 when the scheduler has not been able to decide
 * for 3 s, or when a port has requests waiting and has answered none for 10 s.
 */
public final class ExtenderServer implements AutoCloseable, ExtenderPort.Routes {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration LIVENESS = Duration.ofSeconds(3);
  private static final Duration STALLED = Duration.ofSeconds(10);
  private static final Duration IDLE = Duration.ofSeconds(30);
  private static final int JETTY_DEFAULT_EVENTS = 128;
  private static final int EVENTS_PER_SECOND = 1000;

  private final Scheduler scheduler;
  private final Leadership leadership;
  private final boolean mutualTls;
  private final Map<String, ExtenderVerb> verbs = new HashMap<>();
  private final ExtenderMetrics metrics;
  private final List<ExtenderPort> ports = new ArrayList<>();

  private ExtenderServer(
      Scheduler scheduler, ExtenderRequests requests, Leadership leadership, boolean mutualTls) {
    this.scheduler = scheduler;
    this.leadership = leadership;
    this.mutualTls = mutualTls;
    this.metrics = new ExtenderMetrics(scheduler);
    verbs.putAll(new KubeProtocol(scheduler, requests, leadership).verbs());
    verbs.putAll(new VolcanoProtocol(scheduler, requests, leadership).verbs());
  }

  /** Serves on {@code listeners}; the verbs read the cluster through {@code requests}. */
  static ExtenderServer start(
      Listeners listeners, Scheduler scheduler, ExtenderRequests requests, Leadership leadership)
      throws IOException {
    ExtenderServer extender =
        new ExtenderServer(scheduler, requests, leadership, listeners.mutualTls());
    extender.ports.add(
        new ExtenderPort(
            "plain", listeners.plain(), extender, 16, 512, IDLE, RequestBudget.ofHeap(6)));
    if (listeners.mutualTls()) {
      SslContextFactory.Server tls = new SslContextFactory.Server();
      tls.setSslContext(listeners.tlsContext());
      tls.setNeedClientAuth(true);
      // HTTP/2 where the client offers it (kube-scheduler's Go client does): its calls share one
      // connection, where HTTP/1.1 made a TLS handshake for each call beyond two at once.
      ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory();
      alpn.setDefaultProtocol(HttpVersion.HTTP_1_1.asString());
      extender.ports.add(
          new ExtenderPort(
              "tls",
              listeners.tls(),
              extender,
              16,
              128,
              IDLE,
              RequestBudget.ofHeap(6),
              new SslConnectionFactory(tls, alpn.getProtocol()),
              alpn,
              http2(),
              new HttpConnectionFactory()));
    }
    try {
      for (ExtenderPort port : extender.ports) {
        port.start();
      }
    } catch (IOException e) {
      extender.close();
      throw new IOException("cannot serve on " + listeners + ": " + e.getMessage(), e);
    }
    return extender;
  }

  /**
   * HTTP/2 that keeps kube-scheduler's connection under load. Go's client returns the flow-control
   * credit of an answer in steps of 4 KiB as it reads it ({@code http2inflow.add}), often after the
   * stream closed, and Jetty counts each such WINDOW_UPDATE against a rate limit, by default
   * {@value #JETTY_DEFAULT_EVENTS} a second, past which it closes the connection with every call in
   * flight (ENHANCE_YOUR_CALM): at 1,000 nodes, where a pod's filter and prioritize answers over
   * some 420 nodes come to about 20 KB, it failed 153 bindings of one row of {@code vnpu
   * throughput} at 34 pods a second. {@value #EVENTS_PER_SECOND} a second covers some 200 pods a
   * second of such answers, five times that; only a client with the release's certificate reaches
   * this port.
   */
  private static HTTP2ServerConnectionFactory http2() {
    HTTP2ServerConnectionFactory http2 = new HTTP2ServerConnectionFactory();
    http2.setRateControlFactory(new WindowRateControl.Factory(EVENTS_PER_SECOND));
    return http2;
  }

  /** The plain HTTP port. */
  public int port() {
    return ports.get(0).localPort();
  }

  /** The TLS port, or -1 without TLS. */
  public int tlsPort() {
    return ports.size() > 1 ? ports.get(1).localPort() : -1;
  }

  @Override
  public void close() {
    for (ExtenderPort port : ports) {
      try {
        port.close();
      } catch (IllegalStateException e) {
        LOG.warn("stopping the extender server: {}", e.getMessage());
      }
    }
  }

  @Override
  public ExtenderPort.Reply immediate(String method, String path, boolean secure) {
    if (path.equals("/healthz")) {
      return health();
    }
    if (path.equals("/readyz")) {
      return ExtenderPort.Reply.text(200, leadership.isLeader() ? "leader" : "follower");
    }
    if (path.equals("/metrics")) {
      return new ExtenderPort.Reply(200, metrics.text(), "text/plain; version=0.0.4");
    }
    if (mutualTls && path.startsWith(KubeProtocol.PREFIX) && !secure) {
      return new ExtenderPort.Reply(
          403,
          path
              + ": kube-scheduler's verbs are served only over TLS with a client certificate, on"
              + " port "
              + tlsPort()
              + "\n",
          "text/plain",
          false,
          true);
    }
    if (!verbs.containsKey(path)) {
      return ExtenderPort.Reply.text(404, path + ": no such verb");
    }
    if (!"POST".equals(method)) {
      return ExtenderPort.Reply.text(405, "use POST");
    }
    return null;
  }

  private ExtenderPort.Reply health() {
    if (!scheduler.responsive(LIVENESS)) {
      return ExtenderPort.Reply.text(
          503, "the scheduler has not been able to decide for " + LIVENESS.toSeconds() + " s");
    }
    for (ExtenderPort port : ports) {
      if (port.stalled(STALLED)) {
        return ExtenderPort.Reply.text(
            503,
            "requests wait and none was answered for "
                + STALLED.toSeconds()
                + " s on the "
                + port.describe());
      }
    }
    return ExtenderPort.Reply.text(200, "ok");
  }

  @Override
  public int maxBody(String path) {
    return verbs.get(path).maxBody();
  }

  @Override
  public int expansion(String path) {
    return verbs.get(path).expansion();
  }

  @Override
  public void refused(String path, int status) {
    metrics.record(
        path,
        status >= 500 ? ExtenderMetrics.Outcome.ERROR : ExtenderMetrics.Outcome.BAD_REQUEST,
        0);
  }

  @Override
  public ExtenderPort.Reply answer(String path, InputStream body) {
    long started = System.nanoTime();
    ExtenderPort.Reply reply = call(path, verbs.get(path), body);
    metrics.record(path, outcome(reply), System.nanoTime() - started);
    return reply;
  }

  private ExtenderPort.Reply call(String path, ExtenderVerb verb, InputStream body) {
    try {
      JsonNode request;
      if (verb.maxBody() == 0) {
        request = JSON.createObjectNode();
      } else {
        try {
          request = verb.kept() == null ? JSON.readTree(body) : verb.kept().read(JSON, body);
        } catch (JsonProcessingException e) {
          return ExtenderPort.Reply.text(
              400, path + ": the body is not JSON: " + e.getOriginalMessage());
        }
      }
      Answer answer = verb.handler().answer(request);
      return new ExtenderPort.Reply(
          200, JSON.writeValueAsString(answer.body()), "application/json", answer.refused(), false);
    } catch (BadRequest e) {
      return ExtenderPort.Reply.text(400, path + ": " + e.getMessage());
    } catch (OutOfMemoryError e) {
      LOG.error("{} ran the JVM out of memory; answered 503", path);
      return ExtenderPort.Reply.text(503, path + ": out of memory serving this request");
    } catch (IOException | RuntimeException e) {
      LOG.error("{} failed", path, e);
      return ExtenderPort.Reply.text(500, path + ": " + e);
    }
  }

  private static ExtenderMetrics.Outcome outcome(ExtenderPort.Reply reply) {
    if (reply.status() >= 500) {
      return ExtenderMetrics.Outcome.ERROR;
    }
    if (reply.status() >= 400) {
      return ExtenderMetrics.Outcome.BAD_REQUEST;
    }
    return reply.refused() ? ExtenderMetrics.Outcome.REFUSED : ExtenderMetrics.Outcome.OK;
  }
}
