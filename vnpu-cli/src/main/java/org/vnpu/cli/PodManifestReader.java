package org.vnpu.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodManifests;

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
    return PodManifests.fromJson(document);
  }
}
