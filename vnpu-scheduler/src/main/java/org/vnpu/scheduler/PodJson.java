package org.vnpu.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.core.request.ContainerSpec;
import org.vnpu.core.request.PodManifest;

/**
 * Reads the part of a Kubernetes pod (JSON, as the API server and both schedulers send it) that the
 * engine needs. Absent fields are empty; nothing else of the pod is looked at.
 */
final class PodJson {

  private PodJson() {}

  /**
   * The manifest of {@code pod}.
   *
   * @throws IllegalArgumentException when it has no metadata name
   */
  static PodManifest manifest(JsonNode pod) {
    JsonNode metadata = pod.path("metadata");
    if (!metadata.path("name").isTextual()) {
      throw new IllegalArgumentException("the pod has no metadata.name");
    }
    JsonNode spec = pod.path("spec");
    return new PodManifest(
        metadata.path("namespace").asText("default"),
        metadata.path("name").asText(),
        metadata.path("uid").asText(""),
        strings(metadata.path("annotations")),
        containers(spec.path("initContainers")),
        containers(spec.path("containers")));
  }

  private static List<ContainerSpec> containers(JsonNode list) {
    List<ContainerSpec> containers = new ArrayList<>();
    for (JsonNode container : list) {
      JsonNode resources = container.path("resources");
      containers.add(
          new ContainerSpec(
              container.path("name").asText(""),
              strings(resources.path("limits")),
              strings(resources.path("requests"))));
    }
    return containers;
  }

  private static Map<String, String> strings(JsonNode object) {
    Map<String, String> values = new HashMap<>();
    object.properties().forEach(entry -> values.put(entry.getKey(), entry.getValue().asText()));
    return values;
  }
}
