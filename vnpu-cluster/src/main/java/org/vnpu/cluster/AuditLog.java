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
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;

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
   * Where the log stood: its file, which a rotation renames but keeps ({@code fileKey}, the inode),
   * and its size then.
   */
  record Position(Object file, long offset) {
    static Position of(Path log) throws IOException {
      return new Position(
          Files.readAttributes(log, BasicFileAttributes.class).fileKey(), Files.size(log));
    }
  }

  /**
   * The requests {@code user} made, as {@code verb resource[/subresource]} with their counts, among
   * the events written since {@code from} (a run notes the position when it starts), also when the
   * API server rotated the log meanwhile ({@code --audit-log-maxsize}): the rest of the file {@code
   * from} names, now a backup, then the later backups and the log. Only completed requests count: a
   * watch also logs its start.
   */
  static Map<String, Integer> requestsSince(Path log, Position from, String user)
      throws IOException {
    Map<String, Integer> requests = new TreeMap<>();
    long offset = from.offset();
    for (Path file : filesSince(log, from)) {
      try (InputStream in = Files.newInputStream(file)) {
        in.skipNBytes(offset);
        BufferedReader lines =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
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
      offset = 0;
    }
    return requests;
  }

  /**
   * The log's files from the one {@code from} names on, oldest first: the backups a rotation made,
   * {@code <name>-<time>.log} (lumberjack's names, whose times sort as text), then the log.
   */
  private static List<Path> filesSince(Path log, Position from) throws IOException {
    String name = log.getFileName().toString();
    String stem = name.endsWith(".log") ? name.substring(0, name.length() - 4) : name;
    List<Path> files;
    try (Stream<Path> siblings = Files.list(log.toAbsolutePath().getParent())) {
      files =
          new ArrayList<>(
              siblings
                  .filter(file -> file.getFileName().toString().startsWith(stem + "-"))
                  .filter(file -> file.getFileName().toString().endsWith(".log"))
                  .sorted()
                  .toList());
    }
    files.add(log);
    for (int i = 0; i < files.size(); i++) {
      Object key = Files.readAttributes(files.get(i), BasicFileAttributes.class).fileKey();
      if (from.file() == null || from.file().equals(key)) {
        return files.subList(i, files.size());
      }
    }
    throw new IOException(
        "the audit log "
            + log
            + " was rotated and the file the count started in is gone; its requests cannot be"
            + " counted");
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
