package org.vnpu.cluster.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The container edits of a CDI spec's devices that a container must show once the runtime applied
 * them: the device nodes' and mounts' container paths, and the environment variables.
 */
record CdiEdits(List<String> deviceNodes, List<String> mounts, List<String> environment) {

  private static final ObjectMapper JSON = new ObjectMapper();

  static CdiEdits of(Path spec) throws IOException {
    List<String> nodes = new ArrayList<>();
    List<String> mounts = new ArrayList<>();
    List<String> environment = new ArrayList<>();
    for (JsonNode device : JSON.readTree(spec.toFile()).path("devices")) {
      JsonNode edits = device.path("containerEdits");
      edits.path("deviceNodes").forEach(node -> nodes.add(node.path("path").asText()));
      edits.path("mounts").forEach(mount -> mounts.add(mount.path("containerPath").asText()));
      edits.path("env").forEach(variable -> environment.add(variable.asText()));
    }
    return new CdiEdits(List.copyOf(nodes), List.copyOf(mounts), List.copyOf(environment));
  }
}
