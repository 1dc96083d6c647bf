package org.vnpu.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodManifests;

/**
 * The two extender protocols over HTTP, served by Jetty (ADR 0006):
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
 * lacks the pod or exceeds its verb's limit gets HTTP 400 or 413 with the reason and changes
 * nothing. Limits are per verb: 10 MiB where a request may carry whole Node objects (kube-scheduler
 * without {@code nodeCacheCapable}, Volcano's prioritize), 1 MiB where it carries a pod and one
 * node, 64 KiB for {@code /kube/bind}. Parsed requests take about 30 times their size in memory, so
 * all requests in flight share a budget of a third of the heap; a request that cannot get its share
 * within 5 s gets HTTP 503, as does one that runs the JVM out of memory. {@code /healthz} answers
 * 503 when the scheduler has not been able to decide for 3 s.
 */
public final class ExtenderServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int NODE_LISTS = 10 << 20;
  private static final int ONE_NODE = 1 << 20;
  private static final int SMALL = 64 << 10;
  private static final int KUBE_MAX_SCORE = 10;
  private static final Duration LIVENESS = Duration.ofSeconds(3);

  private final Scheduler scheduler;
  private final KubernetesClient client;
  private final Leadership leadership;
  private final Map<String, Verb> verbs = new HashMap<>();
  private final ExtenderMetrics metrics;
  private final RequestBudget budget = RequestBudget.ofHeap(3);
  private Server server;

  /** A verb's handler, and the largest body it reads (0: it reads none and drains it). */
  private record Verb(int maxBody, Answerer answerer) {}

  private interface Answerer {
    Answer answer(JsonNode request) throws BadRequest;
  }

  /** A verb's answer, and whether it says no in its protocol's own terms (for the metrics). */
  private record Answer(JsonNode body, boolean refused) {

    static Answer of(JsonNode body) {
      return new Answer(body, false);
    }

    /** {@code result} with {@code field} set to {@code error}; refused unless it is empty. */
    static Answer withError(ObjectNode result, String field, String error) {
      return new Answer(result.put(field, error), !error.isEmpty());
    }
  }

  /** A request the protocol cannot carry out; HTTP 400 with this message. */
  private static final class BadRequest extends Exception {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message);
    }
  }

  /** What one call gets back; refused when a 200 answer says no. */
  private record Reply(int status, String body, String type, boolean refused) {
    Reply(int status, String body, String type) {
      this(status, body, type, false);
    }
  }

  private ExtenderServer(Scheduler scheduler, KubernetesClient client, Leadership leadership) {
    this.scheduler = scheduler;
    this.client = client;
    this.leadership = leadership;
    this.metrics = new ExtenderMetrics(scheduler);
    verbs.put("/kube/filter", new Verb(NODE_LISTS, this::kubeFilter));
    verbs.put("/kube/prioritize", new Verb(NODE_LISTS, this::kubePrioritize));
    verbs.put("/kube/bind", new Verb(SMALL, this::kubeBind));
    verbs.put("/volcano/predicate", new Verb(ONE_NODE, this::volcanoPredicate));
    verbs.put("/volcano/prioritize", new Verb(NODE_LISTS, this::volcanoPrioritize));
    verbs.put("/volcano/allocateFunc", new Verb(ONE_NODE, this::volcanoAllocate));
    verbs.put("/volcano/deallocateFunc", new Verb(ONE_NODE, this::volcanoDeallocate));
    // The whole session (every job and node), which the ledger does not need: never parsed.
    verbs.put("/volcano/onSessionOpen", new Verb(0, request -> Answer.of(JSON.createObjectNode())));
    verbs.put(
        "/volcano/onSessionClose", new Verb(0, request -> Answer.of(JSON.createObjectNode())));
  }

  /** Serves on {@code address}; port 0 picks a free one. */
  public static ExtenderServer start(
      InetSocketAddress address,
      Scheduler scheduler,
      KubernetesClient client,
      Leadership leadership)
      throws IOException {
    ExtenderServer extender = new ExtenderServer(scheduler, client, leadership);
    QueuedThreadPool threads = new QueuedThreadPool(16, 4);
    threads.setName("vnpu-extender-http");
    threads.setDaemon(true);
    Server server = new Server(threads);
    ServerConnector connector = new ServerConnector(server);
    connector.setHost(address.getHostString());
    connector.setPort(address.getPort());
    server.addConnector(connector);
    server.setHandler(
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback)
              throws IOException {
            Reply reply =
                extender.reply(
                    request.getMethod(),
                    request.getHttpURI().getPath(),
                    request.getLength(),
                    Content.Source.asInputStream(request));
            response.setStatus(reply.status());
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, reply.type() + "; charset=utf-8");
            Content.Sink.write(response, true, reply.body(), callback);
            return true;
          }
        });
    try {
      server.start();
    } catch (Exception e) {
      throw new IOException("cannot serve on " + address + ": " + e.getMessage(), e);
    }
    extender.server = server;
    return extender;
  }

  public int port() {
    return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
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
    Verb verb = verbs.get(path);
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

  private Reply call(String path, Verb verb, long length, InputStream in) {
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

  private static Reply answered(Verb verb, JsonNode request)
      throws BadRequest, JsonProcessingException {
    Answer answer = verb.answerer().answer(request);
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

  private static Reply tooLarge(String path, Verb verb) {
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

  // ---- kube-scheduler ----

  private Answer kubeFilter(JsonNode request) throws BadRequest {
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
    return new Answer(result, fitting.isEmpty());
  }

  private Answer kubePrioritize(JsonNode request) throws BadRequest {
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
    return Answer.of(result);
  }

  private Answer kubeBind(JsonNode request) throws BadRequest {
    String namespace = text(request, "PodNamespace");
    String name = text(request, "PodName");
    String node = text(request, "Node");
    ObjectNode result = JSON.createObjectNode();
    if (!leadership.isLeader()) {
      return Answer.withError(result, "Error", leadership.notLeader());
    }
    try {
      scheduler.bind(
          placeable(stored(namespace, name, request.path("PodUID").asText()), node), node);
      return Answer.withError(result, "Error", "");
    } catch (SchedulingException e) {
      return Answer.withError(result, "Error", e.getMessage());
    }
  }

  /**
   * The pod as the API server stores it, when it exists with {@code uid}. Writing verbs act on it,
   * never on the request's copy, whose resources and names anyone who reaches the port can choose.
   */
  private Pod stored(String namespace, String name, String uid) throws SchedulingException {
    Pod pod = client.pods().inNamespace(namespace).withName(name).get();
    if (pod == null || !pod.getMetadata().getUid().equals(uid)) {
      throw new SchedulingException(
          "pod " + namespace + "/" + name + " with UID " + uid + " does not exist");
    }
    return pod;
  }

  /**
   * The pod, when its node rules (cordon, selector, required affinity, taints) let it go to {@code
   * node} as the node is now: callers of the writing verbs may not have run the schedulers'
   * filters.
   */
  private PodManifest placeable(Pod pod, String node) throws SchedulingException {
    Node target = client.nodes().withName(node).get();
    if (target == null) {
      throw new SchedulingException("node " + node + " does not exist");
    }
    Optional<String> refusal = NodeRules.refusal(pod, target);
    if (refusal.isPresent()) {
      throw new SchedulingException(
          "pod "
              + pod.getMetadata().getNamespace()
              + "/"
              + pod.getMetadata().getName()
              + " may not go to node "
              + node
              + ": "
              + refusal.get());
    }
    return Fabric8Views.manifest(pod);
  }

  // ---- Volcano ----

  private Answer volcanoPredicate(JsonNode request) throws BadRequest {
    PodManifest pod = pod(request.path("task").path("Pod"), "task.Pod");
    String node = text(request.path("node"), "Name");
    ObjectNode result = JSON.createObjectNode();
    try {
      Scheduler.Verdict verdict = scheduler.filter(pod, List.of(node)).get(node);
      result.put("status", verdict.fits() ? "" : verdict.reason());
      result.put("code", verdict.fits() ? 0 : verdict.unresolvable() ? 3 : 2);
      return new Answer(result, !verdict.fits());
    } catch (SchedulingException e) {
      return new Answer(result.put("status", e.getMessage()).put("code", 3), true);
    }
  }

  private Answer volcanoPrioritize(JsonNode request) throws BadRequest {
    PodManifest pod = pod(request.path("task").path("Pod"), "task.Pod");
    List<String> names = new ArrayList<>();
    for (JsonNode node : request.path("nodes")) {
      names.add(text(node, "Name"));
    }
    ObjectNode result = JSON.createObjectNode();
    ObjectNode scores = result.putObject("nodeScore");
    try {
      scheduler.scores(pod, names).forEach(scores::put);
      return Answer.withError(result, "errorMessage", "");
    } catch (SchedulingException e) {
      return Answer.withError(result, "errorMessage", e.getMessage());
    }
  }

  private Answer volcanoAllocate(JsonNode request) throws BadRequest {
    PodManifest pod = pod(request.path("task").path("Pod"), "task.Pod");
    String node = text(request.path("task"), "NodeName");
    ObjectNode result = JSON.createObjectNode();
    if (!leadership.isLeader()) {
      return Answer.withError(result, "errorMessage", leadership.notLeader());
    }
    try {
      scheduler.reserve(placeable(stored(pod.namespace(), pod.name(), pod.uid()), node), node);
      return Answer.withError(result, "errorMessage", "");
    } catch (SchedulingException e) {
      return Answer.withError(result, "errorMessage", e.getMessage());
    }
  }

  private Answer volcanoDeallocate(JsonNode request) throws BadRequest {
    PodManifest pod = pod(request.path("task").path("Pod"), "task.Pod");
    ObjectNode result = JSON.createObjectNode();
    if (!leadership.isLeader()) {
      return Answer.withError(result, "errorMessage", leadership.notLeader());
    }
    // The pod's truth is the API server's, not the request's: Volcano calls deallocateFunc when a
    // binding failed, so a pod bound to a node keeps its vNPUs until it ends.
    Pod current = client.pods().inNamespace(pod.namespace()).withName(pod.name()).get();
    if (current != null
        && current.getMetadata().getUid().equals(pod.uid())
        && current.getSpec() != null
        && current.getSpec().getNodeName() != null) {
      return Answer.withError(
          result,
          "errorMessage",
          "pod "
              + pod.namespace()
              + "/"
              + pod.name()
              + " is bound to node "
              + current.getSpec().getNodeName()
              + ": its vNPUs are released when it ends, not by deallocateFunc");
    }
    scheduler.unreserve(pod.namespace(), pod.name(), pod.uid());
    return Answer.withError(result, "errorMessage", "");
  }

  // ---- reading requests ----

  private static PodManifest pod(JsonNode pod, String field) throws BadRequest {
    if (!pod.isObject()) {
      throw new BadRequest("missing " + field);
    }
    PodManifest manifest = PodManifests.fromJson(pod);
    if (manifest.uid().isEmpty()) {
      throw new BadRequest(field + " has no metadata.uid");
    }
    return manifest;
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
}
