package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vnpu.api.ResourceNames;

/** The shipped scheduler configurations parse and name the verbs the extender serves. */
class SchedulerConfigsTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Path CONFIGS = Path.of("../deploy/scheduler");

  @Test
  void volcanoConfigNamesOurVerbsAndListsTheManagedResources() throws IOException {
    JsonNode config = YAML.readTree(CONFIGS.resolve("volcano-scheduler.conf").toFile());
    JsonNode arguments = null;
    for (JsonNode tier : config.path("tiers")) {
      for (JsonNode plugin : tier.path("plugins")) {
        if (plugin.path("name").asText().equals("extender")) {
          arguments = plugin.path("arguments");
        }
      }
    }
    assertThat(arguments).isNotNull();
    assertThat(arguments.path("extender.urlPrefix").asText()).endsWith("/volcano");
    List<String> verbs = new ArrayList<>();
    arguments
        .properties()
        .forEach(
            e -> {
              if (e.getKey().endsWith("Verb")) {
                verbs.add(e.getValue().asText());
              }
            });
    assertThat(verbs)
        .containsExactlyInAnyOrder(
            "onSessionOpen",
            "onSessionClose",
            "predicate",
            "prioritize",
            "allocateFunc",
            "deallocateFunc");
    assertThat(arguments.path("extender.managedResources").isArray()).isTrue();
    assertThat(arguments.path("extender.managedResources").get(0).asText())
        .isEqualTo(ResourceNames.VNPU_NUMBER);
  }

  @Test
  void kubeSchedulerConfigBindsThroughUsAndIgnoresOnlyOurScheduledResources() throws IOException {
    JsonNode config = YAML.readTree(CONFIGS.resolve("kube-scheduler-config.yaml").toFile());
    assertThat(config.path("apiVersion").asText()).isEqualTo("kubescheduler.config.k8s.io/v1");
    JsonNode extender = config.path("extenders").get(0);
    assertThat(extender.path("urlPrefix").asText()).endsWith("/kube");
    assertThat(extender.path("filterVerb").asText()).isEqualTo("filter");
    assertThat(extender.path("prioritizeVerb").asText()).isEqualTo("prioritize");
    assertThat(extender.path("bindVerb").asText()).isEqualTo("bind");
    assertThat(extender.path("weight").asInt()).isPositive();
    assertThat(extender.path("nodeCacheCapable").asBoolean()).isTrue();
    List<String> managed = new ArrayList<>();
    extender.path("managedResources").forEach(r -> managed.add(r.path("name").asText()));
    assertThat(managed).allMatch(ResourceNames::isVnpuResource).contains(ResourceNames.VNPU_NUMBER);
  }
}
