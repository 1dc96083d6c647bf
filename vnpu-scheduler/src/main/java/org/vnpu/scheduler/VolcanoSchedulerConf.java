package org.vnpu.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.vnpu.api.ResourceNames;

/**
 * The vNPU extender merged into a Volcano scheduler configuration ({@code volcano-scheduler.conf}),
 * keeping everything else the configuration says. Volcano reads one configuration, its own
 * release's; so rather than ship a configuration that would replace it, {@code vnpu volcano-config}
 * merges ours into the one a cluster has (docs/install.md).
 *
 * <p>What the merge does: the extender plugin (our verbs, {@code ignorable: false}, the managed
 * resources as a list) is put at the end of the first tier, replacing an extender plugin already
 * there; the {@code binpack} plugin is dropped and {@code nodeorder}'s host-resource scores are set
 * to weight 0, because Volcano adds them to the extender's score and they would outvote the vNPU
 * placement (docs/scheduler.md); the {@code preempt} and {@code reclaim} actions are added when
 * missing, so that online pods evict offline ones through the extender's {@code preemptable} and
 * {@code reclaimable} verbs (docs/colocation.md). The first tier, because Volcano takes the victims
 * of the first tier whose plugins name any ({@code framework/session_plugins.go Preemptable}): in a
 * later tier the extender would never be asked, while predicates and node scores are summed over
 * every tier. No session verbs are set: Volcano's extender plugin gives up on the whole session,
 * predicates included, when {@code onSessionOpen} fails ({@code
 * pkg/scheduler/plugins/extender/extender.go OnSessionOpen}), and our ledger needs no session.
 */
public final class VolcanoSchedulerConf {

  /** nodeorder's scores that rank nodes by host CPU and memory or images. */
  static final List<String> HOST_SCORES =
      List.of("leastrequested", "mostrequested", "balancedresource", "imagelocality");

  private static final YAMLMapper YAML =
      YAMLMapper.builder()
          .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
          .build();

  private VolcanoSchedulerConf() {}

  /** Volcano's default configuration, as its chart ships it. */
  public static JsonNode volcanoDefault() {
    try (InputStream in =
        VolcanoSchedulerConf.class.getResourceAsStream("volcano-default-scheduler.conf")) {
      return YAML.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads a configuration.
   *
   * @throws IllegalArgumentException when it is not YAML or has no tiers of plugins
   */
  public static JsonNode parse(String text) {
    JsonNode config;
    try {
      config = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "the Volcano scheduler configuration is not YAML: " + e.getOriginalMessage());
    }
    if (config == null || !config.path("tiers").isArray() || config.path("tiers").isEmpty()) {
      throw new IllegalArgumentException(
          "the Volcano scheduler configuration has no tiers of plugins; give the content of"
              + " volcano-scheduler.conf from Volcano's scheduler ConfigMap");
    }
    return config;
  }

  /** {@code config} with the vNPU extender at {@code urlPrefix}; {@code config} is unchanged. */
  public static ObjectNode merge(JsonNode config, String urlPrefix, Duration httpTimeout) {
    ObjectNode merged = (ObjectNode) config.deepCopy();
    merged.put(
        "actions", withPreemption(merged.path("actions").asText("enqueue, allocate, backfill")));
    ArrayNode tiers = (ArrayNode) merged.path("tiers");
    for (JsonNode tier : tiers) {
      Iterator<JsonNode> plugins = tier.path("plugins").elements();
      while (plugins.hasNext()) {
        JsonNode plugin = plugins.next();
        String name = plugin.path("name").asText();
        if (name.equals("extender") || name.equals("binpack")) {
          plugins.remove();
        } else if (name.equals("nodeorder")) {
          ObjectNode arguments =
              plugin.path("arguments").isObject()
                  ? (ObjectNode) plugin.path("arguments")
                  : ((ObjectNode) plugin).putObject("arguments");
          HOST_SCORES.forEach(score -> arguments.put(score + ".weight", 0));
        }
      }
    }
    ObjectNode extender =
        ((ArrayNode) tiers.get(0).path("plugins")).addObject().put("name", "extender");
    ObjectNode arguments = extender.putObject("arguments");
    arguments.put("extender.urlPrefix", urlPrefix);
    arguments.put("extender.httpTimeout", httpTimeout.toMillis() + "ms");
    arguments.put("extender.predicateVerb", "predicate");
    arguments.put("extender.prioritizeVerb", "prioritize");
    arguments.put("extender.allocateFuncVerb", "allocateFunc");
    arguments.put("extender.deallocateFuncVerb", "deallocateFunc");
    arguments.put("extender.preemptableVerb", "preemptable");
    arguments.put("extender.reclaimableVerb", "reclaimable");
    arguments.put("extender.ignorable", false);
    // A YAML list: a comma-separated string crashes the Volcano scheduler.
    arguments
        .putArray("extender.managedResources")
        .add(ResourceNames.VNPU_NUMBER)
        .add(ResourceNames.VNPU_CORES)
        .add(ResourceNames.VNPU_MEMORY_GIB);
    return merged;
  }

  /**
   * {@code actions} with {@code preempt} and {@code reclaim}, each added before {@code backfill}
   * (or at the end) when missing; the others keep their order.
   */
  static String withPreemption(String actions) {
    List<String> names = new ArrayList<>();
    for (String name : actions.split(",")) {
      if (!name.isBlank()) {
        names.add(name.strip());
      }
    }
    for (String action : List.of("preempt", "reclaim")) {
      if (!names.contains(action)) {
        int backfill = names.indexOf("backfill");
        names.add(backfill < 0 ? names.size() : backfill, action);
      }
    }
    return String.join(", ", names);
  }

  /** The configuration as Volcano reads it. */
  public static String yaml(JsonNode config) {
    try {
      return YAML.writeValueAsString(config);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a configuration read as YAML writes as YAML", e);
    }
  }
}
