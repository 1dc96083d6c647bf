package org.vnpu.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.core.request.PodManifest;

/**
 * The two extender protocols over HTTP, on the JDK's server:
 *
 * <ul>
 *   <li>kube-scheduler ({@code k8s.io/kube-scheduler/extender/v1}): {@code /kube/filter}, {@code
 *       /kube/prioritize} (0..10), {@code /kube/bind};
 *   <li>Volcano's {@code extender} plugin: {@code /volcano/predicate} (message under {@code
 *       status}, code 2 or 3), {@code /volcano/prioritize} (0..100), {@code /volcano/allocateFunc},
 *       {@code /volcano/deallocateFunc}, {@code /volcano/onSessionOpen}, {@code
 *       /volcano/onSessionClose}.
 * </ul>
 *
 * Keys are PascalCase where the protocols' Go structs have no JSON tags. A body that is not JSON,
 * lacks the pod or exceeds 10 MiB gets HTTP 400 or 413 with the reason and changes nothing.
 */
public final class ExtenderServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_BODY = 10 << 20;
  private static final int KUBE_MAX_SCORE = 10;

  private final HttpServer server;
  private final Scheduler scheduler;
  private final KubernetesClient client;

  private interface Verb {
    JsonNode answer(JsonNode request) throws BadRequest;
  }

  /** A request the protocol cannot carry out; HTTP 400 with this message. */
  private static final class BadRequest extends Exception {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message);
    }
  }

  private ExtenderServer(HttpServer server, Scheduler scheduler, KubernetesClient client) {
    this.server = server;
    this.scheduler = scheduler;
    this.client = client;
  }

  static {
    // Without TCP_NODELAY the JDK server's two writes per response meet the client's delayed ACK:
    // 40 ms per call instead of well under one (measured: 89 predicate calls/s before, see
    // docs/benchmarks.md). Read once, when the server's configuration class loads.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  /** Serves on {@code address}; port 0 picks a free one. */
  public static ExtenderServer start(
      InetSocketAddress address, Scheduler scheduler, KubernetesClient client) throws IOException {
    HttpServer http = HttpServer.create(address, 128);
    ExtenderServer server = new ExtenderServer(http, scheduler, client);
    server.route("/kube/filter", server::kubeFilter);
    server.route("/kube/prioritize", server::kubePrioritize);
    server.route("/kube/bind", server::kubeBind);
    server.route("/volcano/predicate", server::volcanoPredicate);
    server.route("/volcano/prioritize", server::volcanoPrioritize);
    server.route("/volcano/allocateFunc", server::volcanoAllocate);
    server.route("/volcano/deallocateFunc", server::volcanoDeallocate);
    server.route("/volcano/onSessionOpen", request -> JSON.createObjectNode());
    server.route("/volcano/onSessionClose", request -> JSON.createObjectNode());
    http.createContext("/healthz", exchange -> respond(exchange, 200, "ok\n", "text/plain"));
    http.setExecutor(
        Executors.newFixedThreadPool(
            4,
            runnable -> {
              Thread thread = new Thread(runnable, "vnpu-extender-http");
              thread.setDaemon(true);
              return thread;
            }));
    http.start();
    return server;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private void route(String path, Verb verb) {
    server.createContext(
        path,
        exchange -> {
          try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
              respond(exchange, 405, "use POST\n", "text/plain");
              return;
            }
            byte[] body = read(exchange.getRequestBody());
            if (body == null) {
              respond(exchange, 413, "request body exceeds 10 MiB\n", "text/plain");
              return;
            }
            JsonNode request;
            try {
              request = JSON.readTree(body);
            } catch (JsonProcessingException e) {
              respond(
                  exchange,
                  400,
                  path + ": the body is not JSON: " + e.getOriginalMessage() + "\n",
                  "text/plain");
              return;
            }
            try {
              respond(
                  exchange, 200, JSON.writeValueAsString(verb.answer(request)), "application/json");
            } catch (BadRequest e) {
              respond(exchange, 400, path + ": " + e.getMessage() + "\n", "text/plain");
            }
          } catch (RuntimeException e) {
            LOG.error("{} failed", path, e);
            respond(exchange, 500, path + ": " + e + "\n", "text/plain");
          }
        });
  }

  // ---- kube-scheduler ----

  private JsonNode kubeFilter(JsonNode request) throws BadRequest {
    PodManifest pod = pod(request.path("Pod"), "Pod");
    List<String> names = nodeNames(request);
    ObjectNode result = JSON.createObjectNode();
    ObjectNode failed = result.putObject("FailedNodes");
    ObjectNode unresolvable = result.putObject("FailedAndUnresolvableNodes");
    List<String> fitting = new ArrayList<>();
    try {
      for (Map.Entry<String, Scheduler.Verdict> verdict : scheduler.filter(pod, names).entrySet()) {
        if (verdict.getValue().fits()) {
          fitting.add(verdict.getKey());
        } else {
          (verdict.getValue().unresolvable() ? unresolvable : failed)
              .put(verdict.getKey(), verdict.getValue().reason());
        }
      }
    } catch (SchedulingException e) {
      names.forEach(name -> unresolvable.put(name, e.getMessage()));
    }
    if (request.path("NodeNames").isArray()) {
      ArrayNode kept = result.putArray("NodeNames");
      fitting.forEach(kept::add);
      result.putNull("Nodes");
    } else {
      ObjectNode nodes = result.putObject("Nodes");
      ArrayNode items = nodes.putArray("items");
      for (JsonNode node : request.path("Nodes").path("items")) {
        if (fitting.contains(node.path("metadata").path("name").asText())) {
          items.add(node);
        }
      }
      result.putNull("NodeNames");
    }
    result.put("Error", "");
    return result;
  }

  private JsonNode kubePrioritize(JsonNode request) throws BadRequest {
    PodManifest pod = pod(request.path("Pod"), "Pod");
    List<String> names = nodeNames(request);
    ArrayNode result = JSON.createArrayNode();
    Map<String, Double> scores;
    try {
      scores = scheduler.scores(pod, names);
    } catch (SchedulingException e) {
      scores = Map.of();
    }
    for (String name : names) {
      double score = scores.getOrDefault(name, 0.0);
      result.addObject().put("Host", name).put("Score", Math.round(score * KUBE_MAX_SCORE / 100));
    }
    return result;
  }

  private JsonNode kubeBind(JsonNode request) throws BadRequest {
    String namespace = text(request, "PodNamespace");
    String name = text(request, "PodName");
    String node = text(request, "Node");
    ObjectNode result = JSON.createObjectNode();
    Pod pod = client.pods().inNamespace(namespace).withName(name).get();
    if (pod == null || !pod.getMetadata().getUid().equals(request.path("PodUID").asText())) {
      result.put(
          "Error",
          "pod "
              + namespace
              + "/"
              + name
              + " with UID "
              + request.path("PodUID").asText()
              + " does not exist");
      return result;
    }
    try {
      scheduler.bind(PodJson.manifest(JSON.readTree(Serialization.asJson(pod))), node);
      result.put("Error", "");
    } catch (SchedulingException e) {
      result.put("Error", e.getMessage());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("fabric8 wrote JSON Jackson cannot read", e);
    }
    return result;
  }

  // ---- Volcano ----

  private JsonNode volcanoPredicate(JsonNode request) throws BadRequest {
    PodManifest pod = pod(request.path("task").path("Pod"), "task.Pod");
    String node = text(request.path("node"), "Name");
    ObjectNode result = JSON.createObjectNode();
    try {
      Scheduler.Verdict verdict = scheduler.filter(pod, List.of(node)).get(node);
      result.put("status", verdict.fits() ? "" : verdict.reason());
      result.put("code", verdict.fits() ? 0 : verdict.unresolvable() ? 3 : 2);
    } catch (SchedulingException e) {
      result.put("status", e.getMessage()).put("code", 3);
    }
    return result;
  }

  private JsonNode volcanoPrioritize(JsonNode request) throws BadRequest {
    PodManifest pod = pod(request.path("task").path("Pod"), "task.Pod");
    List<String> names = new ArrayList<>();
    for (JsonNode node : request.path("nodes")) {
      names.add(text(node, "Name"));
    }
    ObjectNode result = JSON.createObjectNode();
    ObjectNode scores = result.putObject("nodeScore");
    try {
      scheduler.scores(pod, names).forEach(scores::put);
      result.put("errorMessage", "");
    } catch (SchedulingException e) {
      result.put("errorMessage", e.getMessage());
    }
    return result;
  }

  private JsonNode volcanoAllocate(JsonNode request) throws BadRequest {
    PodManifest pod = pod(request.path("task").path("Pod"), "task.Pod");
    String node = text(request.path("task"), "NodeName");
    ObjectNode result = JSON.createObjectNode();
    try {
      scheduler.reserve(pod, node);
      result.put("errorMessage", "");
    } catch (SchedulingException e) {
      result.put("errorMessage", e.getMessage());
    }
    return result;
  }

  private JsonNode volcanoDeallocate(JsonNode request) throws BadRequest {
    PodManifest pod = pod(request.path("task").path("Pod"), "task.Pod");
    scheduler.unreserve(pod.namespace(), pod.name(), pod.uid());
    return JSON.createObjectNode().put("errorMessage", "");
  }

  // ---- reading requests ----

  private static PodManifest pod(JsonNode pod, String field) throws BadRequest {
    if (!pod.isObject()) {
      throw new BadRequest("missing " + field);
    }
    try {
      PodManifest manifest = PodJson.manifest(pod);
      if (manifest.uid().isEmpty()) {
        throw new BadRequest(field + " has no metadata.uid");
      }
      return manifest;
    } catch (IllegalArgumentException e) {
      throw new BadRequest(field + ": " + e.getMessage());
    }
  }

  private static List<String> nodeNames(JsonNode request) throws BadRequest {
    List<String> names = new ArrayList<>();
    if (request.path("NodeNames").isArray()) {
      request.path("NodeNames").forEach(name -> names.add(name.asText()));
    } else if (request.path("Nodes").path("items").isArray()) {
      request
          .path("Nodes")
          .path("items")
          .forEach(node -> names.add(node.path("metadata").path("name").asText()));
    } else {
      throw new BadRequest("neither NodeNames nor Nodes.items is given");
    }
    return names;
  }

  private static String text(JsonNode object, String field) throws BadRequest {
    JsonNode value = object.path(field);
    if (!value.isTextual() || value.asText().isEmpty()) {
      throw new BadRequest("missing " + field);
    }
    return value.asText();
  }

  private static byte[] read(InputStream in) throws IOException {
    byte[] body = in.readNBytes(MAX_BODY + 1);
    return body.length > MAX_BODY ? null : body;
  }

  private static void respond(HttpExchange exchange, int status, String body, String type)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
