package org.vnpu.cli;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The chart as tests render it with helm-java (no helm binary): release {@code release-name} in
 * namespace {@code vnpu-system}. It renders a copy without {@code kubeVersion}, because helm-java's
 * Helm is built without the Kubernetes version a Helm release carries and renders as Kubernetes
 * v1.20.0, which the constraint refuses ({@code HelmChartTest} checks the constraint).
 */
final class RenderedChart {

  static final Path SOURCE = Path.of("../deploy/helm/vnpu");
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static Path copy;

  private RenderedChart() {}

  /** The chart's copy, made once. */
  static synchronized Path chart() {
    if (copy == null) {
      try {
        Path chart = Files.createTempDirectory("vnpu-chart").resolve("vnpu");
        try (Stream<Path> files = Files.walk(SOURCE)) {
          for (Path file : files.toList()) {
            Path target = chart.resolve(SOURCE.relativize(file).toString());
            if (Files.isDirectory(file)) {
              Files.createDirectories(target);
            } else {
              Files.copy(file, target);
            }
          }
        }
        Path manifest = chart.resolve("Chart.yaml");
        Files.writeString(
            manifest, Files.readString(manifest).replaceAll("(?m)^kubeVersion:.*$", ""));
        copy = chart;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return copy;
  }

  /** The objects the chart renders with {@code values} (and an image repository). */
  static List<HasMetadata> render(Map<String, Object> values) {
    TemplateCommand template =
        new Helm(chart())
            .template()
            .withName("release-name")
            .withNamespace("vnpu-system")
            .set("image.repository", "registry.example/vnpu");
    values.forEach(template::set);
    List<HasMetadata> objects = new ArrayList<>();
    for (String document : template.call().split("(?m)^---\\s*$")) {
      if (document.lines().anyMatch(line -> line.startsWith("kind:"))) {
        objects.add(SERIALIZATION.unmarshal(document, HasMetadata.class));
      }
    }
    return objects;
  }
}
