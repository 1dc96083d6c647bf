package org.vnpu.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.core.request.ContainerSpec;
import org.vnpu.core.request.PodManifest;

/** Reads Pod manifests (YAML or JSON, one or several documents) into {@link PodManifest}s. */
final class PodManifestReader {

  private static final YAMLMapper YAML = new YAMLMapper();

  private PodManifestReader() {}

  static List<PodManifest> read(String source, InputStream in) {
    List<PodManifest> pods = new ArrayList<>();
    try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class).readValues(in)) {
      int number = 0;
      while (documents.hasNextValue()) {
        JsonNode document = documents.nextValue();
        number++;
        if (document == null || document.isNull() || document.isEmpty()) {
          continue;
        }
        pods.add(pod(source + " document " + number, document));
      }
    } catch (IOException e) {
      throw new InputException(source + ": not a YAML or JSON manifest: " + e.getMessage());
    }
    if (pods.isEmpty()) {
      throw new InputException(source + ": contains no manifest");
    }
    return pods;
  }

  private static PodManifest pod(String where, JsonNode document) {
    String kind = document.path("kind").asText("");
    if (!kind.equals("Pod")) {
      throw new InputException(
          where + ": kind \"" + kind + "\" is not a Pod; validate-pod reads Pod manifests");
    }
    JsonNode metadata = document.path("metadata");
    String name = metadata.path("name").asText(metadata.path("generateName").asText("(unnamed)"));
    JsonNode spec = document.path("spec");
    return new PodManifest(
        metadata.path("namespace").asText("default"),
        name,
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
