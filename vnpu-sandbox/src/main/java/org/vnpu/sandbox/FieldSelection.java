package org.vnpu.sandbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.HttpURLConnection;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Lists and watches selected by field, as the API server serves them: only the fields a kind offers
 * ({@code spec.nodeName} of pods; {@code spec.nodeName} and {@code spec.driver} of ResourceSlices,
 * {@code resourceslice/strategy.go} {@code toSelectableFields}), which fabric8's mock ignores; and
 * the watch of every namespace's pods by {@code spec.nodeName} that kubelets open ({@link
 * NodePodWatches}).
 */
final class FieldSelection {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final MockStore store;
  private final NodePodWatches nodeWatches;

  FieldSelection(MockStore store, NodePodWatches nodeWatches) {
    this.store = store;
    this.nodeWatches = nodeWatches;
  }

  /**
   * A list selected by field, as the API server selects it: only the fields that kind offers
   * ({@code fields}, e.g. {@code spec.nodeName}), each {@code name=value}, all of them to match.
   */
  MockResponse selected(String path, RecordedRequest request, Set<String> fields) {
    Map<String, String> wanted = new HashMap<>();
    String unknown = fieldSelector(request.getPath(), fields, wanted);
    if (unknown != null) {
      return ApiStatus.failure(HttpURLConnection.HTTP_BAD_REQUEST, "BadRequest", unknown);
    }
    MockResponse all = store.get(path);
    if (all.code() != HttpURLConnection.HTTP_OK) {
      return all;
    }
    JsonNode list;
    try {
      list = JSON.readTree(all.getBody().readString(StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      return ApiStatus.failure(
          HttpURLConnection.HTTP_INTERNAL_ERROR, "InternalError", e.getMessage());
    }
    ArrayNode kept = JsonNodeFactory.instance.arrayNode();
    for (JsonNode item : list.path("items")) {
      boolean match = true;
      for (Map.Entry<String, String> field : wanted.entrySet()) {
        JsonNode value = item.at("/" + field.getKey().replace('.', '/'));
        match &= value.isTextual() && value.asText().equals(field.getValue());
      }
      if (match) {
        kept.add(item);
      }
    }
    ((ObjectNode) list).set("items", kept);
    return new MockResponse().setResponseCode(HttpURLConnection.HTTP_OK).setBody(list.toString());
  }

  /**
   * Reads the field selector of {@code pathAndQuery} into {@code terms}, each {@code name=value};
   * the reason it cannot be served when a term is not {@code name=value} or names a field the kind
   * does not offer ({@code fields}), else null.
   */
  private static String fieldSelector(
      String pathAndQuery, Set<String> fields, Map<String, String> terms) {
    String selector = queryParameter(pathAndQuery, "fieldSelector");
    for (String term : selector == null ? new String[0] : selector.split(",")) {
      String[] pair = term.split("=", 2);
      if (pair.length != 2 || !fields.contains(pair[0])) {
        return "\""
            + term
            + "\" is not a known field selector: only "
            + fields.stream().sorted().map(f -> "\"" + f + "\"").toList();
      }
      terms.put(pair[0], pair[1]);
    }
    return null;
  }

  /**
   * A watch of every namespace's pods selected by {@code spec.nodeName}, as a kubelet opens it
   * ({@link NodePodWatches}); the selector may name nothing else, and no labels.
   */
  MockResponse nodePodWatch(String path, RecordedRequest request) {
    Map<String, String> terms = new HashMap<>();
    String unknown = fieldSelector(request.getPath(), Set.of("spec.nodeName"), terms);
    if (unknown != null
        || !path.equals("/api/v1/pods")
        || request.getPath().contains("labelSelector=")) {
      return ApiStatus.failure(
          HttpURLConnection.HTTP_BAD_REQUEST,
          "BadRequest",
          "the sandbox's API server watches pods by node only as a kubelet does: every namespace,"
              + " fieldSelector=spec.nodeName=NODE alone"
              + (unknown == null ? "" : "; " + unknown));
    }
    return nodeWatches.open(
        terms.get("spec.nodeName"), queryParameter(request.getPath(), "resourceVersion"));
  }

  /** The decoded value of the query parameter {@code name} of {@code pathAndQuery}, else null. */
  private static String queryParameter(String pathAndQuery, String name) {
    String[] parts = pathAndQuery.split("\\?", 2);
    for (String parameter : parts.length < 2 ? new String[0] : parts[1].split("&")) {
      if (parameter.startsWith(name + "=")) {
        return URLDecoder.decode(parameter.substring(name.length() + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }
}
