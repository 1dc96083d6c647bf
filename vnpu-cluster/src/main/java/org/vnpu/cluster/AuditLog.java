package org.vnpu.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        JsonNode event = JSON.readTree(line);
        String user = event.path("user").path("username").asText();
        if (event.path("responseStatus").path("code").asInt() != 403 || !vnpuComponent(user)) {
          continue;
        }
        JsonNode object = event.path("objectRef");
        String resource =
            object.path("resource").asText(event.path("requestURI").asText())
                + (object.has("subresource") ? "/" + object.path("subresource").asText() : "");
        refused.merge(user + " " + event.path("verb").asText() + " " + resource, 1, Integer::sum);
      }
    }
    return refused.entrySet().stream().map(e -> e.getKey() + " (" + e.getValue() + ")").toList();
  }
}
