package org.vnpu.sandbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches of the pods bound to one node, as a kubelet opens them ({@code
 * pkg/kubelet/config/apiserver.go NewSourceApiserver}: {@code fields.OneTermEqualSelector(
 * "spec.nodeName", nodeName)}) and fabric8's mock cannot serve (it selects on attributes it stores,
 * and a pod's node is not one of them). They are served as the API server's watch cache serves them
 * ({@code staging/src/k8s.io/apiserver/pkg/storage/cacher}):
 *
 * <ul>
 *   <li>{@code cacher.go Watch}: a watch from resource version {@code R} gets every change after
 *       {@code R} ({@code GetAllEventsSinceThreadUnsafe}), then the changes as they come; a watch
 *       from no version or {@code 0} gets the node's pods as they are, each {@code ADDED}; a watch
 *       from a version older than the changes kept gets one {@code ERROR} event, 410 {@code
 *       Expired} ({@code newErrWatcher}), and the client lists again;
 *   <li>{@code cache_watcher.go convertToWatchEvent}: a change of a pod that was not on the node
 *       and is now (its binding) is {@code ADDED}, one of a pod that stays {@code MODIFIED}, one of
 *       a pod that leaves (its deletion) {@code DELETED}, carrying the version of the deletion.
 * </ul>
 *
 * Only the last {@code retained} changes are kept, as the watch cache keeps a window.
 */
final class NodePodWatches {

  private static final Logger LOG = LoggerFactory.getLogger(NodePodWatches.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One pod's change: its node before and after (null when none), its state after. */
  private record Change(long version, String before, String after, String state) {}

  /** A pod as it is now: its node (null while pending) and its JSON. */
  private record Current(String node, String json) {}

  private final int retained;
  private final LongSupplier nextVersion;
  private final Deque<Change> changes = new ArrayDeque<>();
  private final Map<String, Current> pods = new HashMap<>();
  private final Set<NodeWatch> watches = new HashSet<>();
  private long forgottenUpTo;

  /**
   * @param retained how many changes a watch from an older version can still be served
   * @param nextVersion the API server's next resource version, given to a deletion
   */
  NodePodWatches(int retained, LongSupplier nextVersion) {
    this.retained = retained;
    this.nextVersion = nextVersion;
  }

  /**
   * A pod was created ({@code before} null), changed, or deleted ({@code after} null); each is the
   * pod's JSON as stored.
   */
  synchronized void changed(String before, String after) {
    if (Objects.equals(before, after)) {
      return;
    }
    JsonNode pod = tree(after != null ? after : before);
    String uid = pod.path("metadata").path("uid").asText();
    Current was = pods.get(uid);
    String from = was == null ? null : was.node();
    Change change;
    if (after == null) {
      pods.remove(uid);
      long version = nextVersion.getAsLong();
      ((ObjectNode) pod.path("metadata")).put("resourceVersion", String.valueOf(version));
      change = new Change(version, from, null, pod.toString());
    } else {
      String to = text(pod.path("spec").path("nodeName"));
      pods.put(uid, new Current(to, after));
      change =
          new Change(
              Long.parseLong(pod.path("metadata").path("resourceVersion").asText("0")),
              from,
              to,
              after);
    }
    changes.addLast(change);
    while (changes.size() > retained) {
      forgottenUpTo = changes.removeFirst().version();
    }
    watches.forEach(watch -> watch.send(change));
  }

  /**
   * A watch of the pods bound to {@code node} from {@code resourceVersion} (null or {@code 0}: from
   * the pods as they are).
   */
  MockResponse open(String node, String resourceVersion) {
    return new MockResponse().withWebSocketUpgrade(new NodeWatch(node, resourceVersion));
  }

  /** Registers {@code watch} with what it must see first, so that no change comes between. */
  private synchronized void opened(NodeWatch watch) {
    String since = watch.resourceVersion;
    if (since == null || since.isEmpty() || since.equals("0")) {
      pods.values().stream()
          .filter(pod -> watch.node.equals(pod.node()))
          .forEach(pod -> watch.event("ADDED", pod.json()));
    } else {
      long version;
      try {
        version = Long.parseLong(since);
      } catch (NumberFormatException e) {
        watch.fail(400, "BadRequest", "resource version " + since + " is not a number");
        return;
      }
      if (version < forgottenUpTo) {
        watch.fail(
            410,
            "Expired",
            "too old resource version: " + version + " (" + (forgottenUpTo + 1) + ")");
        return;
      }
      changes.stream().filter(change -> change.version() > version).forEach(watch::send);
    }
    watches.add(watch);
  }

  private synchronized void closed(NodeWatch watch) {
    watches.remove(watch);
  }

  private static JsonNode tree(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the API server stored a pod that is not JSON", e);
    }
  }

  private static String text(JsonNode node) {
    return node.isTextual() && !node.asText().isEmpty() ? node.asText() : null;
  }

  /** One client's watch. */
  private final class NodeWatch extends WebSocketListener {

    private final String node;
    private final String resourceVersion;
    private WebSocket socket;

    NodeWatch(String node, String resourceVersion) {
      this.node = node;
      this.resourceVersion = resourceVersion;
    }

    @Override
    public void onOpen(WebSocket webSocket, Response response) {
      socket = webSocket;
      opened(this);
    }

    @Override
    public void onClosed(WebSocket webSocket, int code, String reason) {
      closed(this);
    }

    @Override
    public void onFailure(WebSocket webSocket, Throwable t, Response response) {
      closed(this);
    }

    /** {@code change} as this watch sees it, if it concerns its node. */
    void send(Change change) {
      boolean was = node.equals(change.before());
      boolean is = node.equals(change.after());
      if (was || is) {
        event(was && is ? "MODIFIED" : is ? "ADDED" : "DELETED", change.state());
      }
    }

    void event(String type, String object) {
      socket.send("{\"type\":\"" + type + "\",\"object\":" + object + "}");
    }

    /** Ends the watch with one {@code ERROR} event, as {@code newErrWatcher} does. */
    void fail(int code, String reason, String message) {
      LOG.info("watch of the pods of node {}: {}", node, message);
      ObjectNode status = JSON.createObjectNode();
      status.put("kind", "Status").put("apiVersion", "v1").put("status", "Failure");
      status.put("message", message).put("reason", reason).put("code", code);
      event("ERROR", status.toString());
      socket.close(1000, message);
    }
  }
}
