package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The kube-scheduler configuration the Helm chart ships ({@code deploy/helm/vnpu/files}, copied
 * onto the class path by the build), read as YAML with its template expressions blanked: the
 * sandbox schedules with exactly what a cluster gets.
 */
final class ChartFiles {

  private static final YAMLMapper YAML = new YAMLMapper();

  private ChartFiles() {}

  /** The chart file {@code name}, its {@code {{ ... }}} expressions replaced by a placeholder. */
  static JsonNode read(String name) {
    try (InputStream in = ChartFiles.class.getResourceAsStream("chart/" + name)) {
      if (in == null) {
        throw new IllegalStateException("chart file " + name + " is not on the class path");
      }
      return parse(
          new String(in.readAllBytes(), StandardCharsets.UTF_8)
              .replaceAll("\\{\\{[^}]*}}", "templated"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A configuration as YAML; IllegalArgumentException when it is not. */
  static JsonNode parse(String yaml) {
    try {
      return YAML.readTree(yaml);
    } catch (IOException e) {
      throw new IllegalArgumentException("scheduler configuration is not YAML: " + e.getMessage());
    }
  }
}
