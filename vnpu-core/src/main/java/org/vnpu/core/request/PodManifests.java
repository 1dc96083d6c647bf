package org.vnpu.core.request;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the part of a Kubernetes pod the engine needs from its JSON or YAML tree (a manifest, or a
 * pod as the API server and both schedulers send it). Absent fields are empty; nothing else of the
 * pod is looked at.
 */
public final class PodManifests {

  private PodManifests() {}

  /** The manifest of the pod {@code pod}; a pod without a name is called {@code (unnamed)}. */
  public static PodManifest fromJson(JsonNode pod) {
    JsonNode metadata = pod.path("metadata");
    JsonNode spec = pod.path("spec");
    return new PodManifest(
        metadata.path("namespace").asText("default"),
        metadata.path("name").asText(metadata.path("generateName").asText("(unnamed)")),
        metadata.path("uid").asText(""),
        strings(metadata.path("annotations")),
        containers(spec.path("initContainers")),
        containers(spec.path("containers")),
        spec.path("priority").isInt() ? spec.path("priority").intValue() : null,
        strings(spec.path("overhead")));
  }

  private static List<ContainerSpec> containers(JsonNode list) {
    List<ContainerSpec> containers = new ArrayList<>();
    for (JsonNode container : list) {
      JsonNode resources = container.path("resources");
      containers.add(
          new ContainerSpec(
              container.path("name").asText("(container " + (containers.size() + 1) + ")"),
              strings(resources.path("limits")),
              strings(resources.path("requests"))));
    }
    return containers;
  }

  private static Map<String, String> strings(JsonNode object) {
    Map<String, String> map = new LinkedHashMap<>();
    object.properties().forEach(field -> map.put(field.getKey(), field.getValue().asText()));
    return map;
  }
}
