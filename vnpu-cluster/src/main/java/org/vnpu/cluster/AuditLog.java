package org.vnpu.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The API server's audit log ({@code --audit-log-path}, one JSON event per line): what each user
 * asked and what it was answered.
 */
final class AuditLog {

  private static final ObjectMapper JSON = new ObjectMapper();

  private AuditLog() {}

  /** Whether {@code user} is one of vNPU's components: its ServiceAccounts, or a node. */
  static boolean vnpuComponent(String user) {
    return user.startsWith("system:serviceaccount:" + VnpuRelease.NAMESPACE + ":")
        || user.startsWith("system:node:");
  }

  /**
   * vNPU's requests answered 403, each as {@code user verb resource[/subresource] (count)}: RBAC or
   * the Node authorizer refused it. Other users' refusals (a tenant the policies stop, the
   * administrator past a quota) are not vNPU's.
   */
  static List<String> refusedRequests(Path log) throws IOException {
    Map<String, Integer> refused = new TreeMap<>();
    try (BufferedReader lines = Files.newBufferedReader(log)) {
      forEachEvent(
          lines,
          line -> true,
          event -> {
            String user = event.path("user").path("username").asText();
            if (event.path("responseStatus").path("code").asInt() == 403 && vnpuComponent(user)) {
              refused.merge(user + " " + request(event), 1, Integer::sum);
            }
          });
    }
    return refused.entrySet().stream().map(e -> e.getKey() + " (" + e.getValue() + ")").toList();
  }

  /**
   * The requests {@code user} made, as {@code verb resource[/subresource]} with their counts, among
   * the events written from byte {@code offset} of the log on (a run notes the log's size when it
   * starts). Only completed requests count: a watch also logs its start.
   */
  static Map<String, Integer> requestsSince(Path log, long offset, String user) throws IOException {
    Map<String, Integer> requests = new TreeMap<>();
    try (InputStream in = Files.newInputStream(log)) {
      in.skipNBytes(offset);
      BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      forEachEvent(
          lines,
          line -> line.contains(user),
          event -> {
            if (event.path("user").path("username").asText().equals(user)
                && event.path("stage").asText().equals("ResponseComplete")) {
              requests.merge(request(event), 1, Integer::sum);
            }
          });
    }
    return requests;
  }

  /**
   * Each event of the log read by {@code lines} whose line passes {@code wanted}. The API server is
   * writing the log while it is read: a last line that does not parse is one it has not finished,
   * and is left out; any other that does not parse is an error.
   */
  private static void forEachEvent(
      BufferedReader lines, Predicate<String> wanted, Consumer<JsonNode> action)
      throws IOException {
    String line = lines.readLine();
    while (line != null) {
      String next = lines.readLine();
      if (wanted.test(line)) {
        JsonNode event;
        try {
          event = JSON.readTree(line);
        } catch (JsonProcessingException e) {
          if (next == null) {
            return;
          }
          throw e;
        }
        action.accept(event);
      }
      line = next;
    }
  }

  /** {@code verb resource[/subresource]} of an event. */
  private static String request(JsonNode event) {
    JsonNode object = event.path("objectRef");
    String resource =
        object.path("resource").asText(event.path("requestURI").asText())
            + (object.has("subresource") ? "/" + object.path("subresource").asText() : "");
    return event.path("verb").asText() + " " + resource;
  }
}
