package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vnpu.api.ResourceNames;

/** The vNPU extender merged into Volcano's configuration, the rest of which is kept. */
class VolcanoSchedulerConfTest {

  private static final String URL = "http://vnpu-scheduler.vnpu-system.svc:9401/volcano";

  @Test
  void mergingIntoVolcanosDefaultKeepsItsSettingsAndAddsTheExtender() {
    JsonNode merged = merge(VolcanoSchedulerConf.volcanoDefault());

    assertThat(merged.path("actions").asText())
        .isEqualTo("enqueue, allocate, preempt, reclaim, backfill");
    assertThat(names(merged.path("tiers").get(0)))
        .as("the first tier decides preemption victims (framework/session_plugins.go Preemptable)")
        .containsExactly("priority", "gang", "conformance", "extender");
    assertThat(merged.path("tiers").get(0).path("plugins").get(1).path("enablePreemptable"))
        .as("Volcano's own plugin settings stay")
        .hasToString("false");
    assertThat(names(merged.path("tiers").get(1)))
        .containsExactly("overcommit", "drf", "predicates", "proportion", "nodeorder");
    JsonNode arguments = merged.path("tiers").get(0).path("plugins").get(3).path("arguments");
    assertThat(arguments.path("extender.preemptableVerb").asText()).isEqualTo("preemptable");
    assertThat(arguments.path("extender.reclaimableVerb").asText()).isEqualTo("reclaimable");
    assertThat(arguments.path("extender.urlPrefix").asText()).isEqualTo(URL);
    assertThat(arguments.path("extender.httpTimeout").asText()).isEqualTo("1000ms");
    assertThat(arguments.path("extender.ignorable").asBoolean(true)).isFalse();
    assertThat(arguments.path("extender.managedResources").isArray()).isTrue();
    assertThat(arguments.path("extender.managedResources").get(0).asText())
        .isEqualTo(ResourceNames.VNPU_NUMBER);
    assertThat(arguments.has("extender.onSessionOpenVerb"))
        .as("a failed session verb would turn the extender off for the session")
        .isFalse();
    assertThat(merged.path("tiers").get(1).path("plugins").get(4).path("arguments"))
        .hasToString(
            "{\"leastrequested.weight\":0,\"mostrequested.weight\":0,"
                + "\"balancedresource.weight\":0,\"imagelocality.weight\":0}");
  }

  @Test
  void mergingAgainReplacesTheExtenderAndKeepsWhatTheOperatorSet() {
    JsonNode configured =
        VolcanoSchedulerConf.parse(
            """
            actions: "enqueue, allocate, preempt, backfill"
            tiers:
            - plugins:
              - name: priority
              - name: nodeorder
                arguments:
                  nodeaffinity.weight: 5
                  leastrequested.weight: 3
              - name: extender
                arguments:
                  extender.urlPrefix: http://old
                  extender.onSessionOpenVerb: onSessionOpen
            """);

    JsonNode once = merge(configured);
    JsonNode twice = merge(once);

    assertThat(twice).isEqualTo(once);
    assertThat(once.path("actions").asText())
        .isEqualTo("enqueue, allocate, preempt, reclaim, backfill");
    assertThat(names(once.path("tiers").get(0)))
        .containsExactly("priority", "nodeorder", "extender");
    JsonNode nodeorder = once.path("tiers").get(0).path("plugins").get(1).path("arguments");
    assertThat(nodeorder.path("nodeaffinity.weight").asInt()).isEqualTo(5);
    assertThat(nodeorder.path("leastrequested.weight").asInt()).isZero();
    JsonNode extender = once.path("tiers").get(0).path("plugins").get(2).path("arguments");
    assertThat(extender.path("extender.urlPrefix").asText()).isEqualTo(URL);
    assertThat(extender.has("extender.onSessionOpenVerb")).isFalse();
  }

  @Test
  void theMergedYamlReadsBackAsTheSameConfiguration() {
    JsonNode merged = merge(VolcanoSchedulerConf.volcanoDefault());

    assertThat(VolcanoSchedulerConf.parse(VolcanoSchedulerConf.yaml(merged))).isEqualTo(merged);
  }

  @Test
  void refusesTextThatIsNoVolcanoConfiguration() {
    assertThatThrownBy(() -> VolcanoSchedulerConf.parse("actions: [unclosed"))
        .hasMessageStartingWith("the Volcano scheduler configuration is not YAML: ");
    assertThatThrownBy(() -> VolcanoSchedulerConf.parse("actions: allocate\n"))
        .hasMessage(
            "the Volcano scheduler configuration has no tiers of plugins; give the content of"
                + " volcano-scheduler.conf from Volcano's scheduler ConfigMap");
  }

  private static JsonNode merge(JsonNode config) {
    return VolcanoSchedulerConf.merge(config, URL, Duration.ofSeconds(1));
  }

  private static List<String> names(JsonNode tier) {
    List<String> names = new ArrayList<>();
    tier.path("plugins").forEach(plugin -> names.add(plugin.path("name").asText()));
    return names;
  }
}
