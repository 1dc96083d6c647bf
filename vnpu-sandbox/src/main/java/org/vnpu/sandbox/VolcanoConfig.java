package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.vnpu.kube.PodRequests;
import org.vnpu.scheduler.VolcanoSchedulerConf;

/**
 * What of a {@code volcano-scheduler.conf} the sandbox's Volcano session follows: which node-order
 * scores are on and their weights.
 *
 * @param nodeorder weights of the {@code nodeorder} plugin's scores by argument prefix ({@code
 *     leastrequested}, {@code balancedresource}, ...); empty when the plugin is not configured
 * @param binpackWeight {@code binpack.weight}; 0 when the plugin is not configured
 * @param binpackResources weights of the {@code binpack} plugin's resources
 */
public record VolcanoConfig(
    Map<String, Integer> nodeorder, int binpackWeight, Map<String, Integer> binpackResources) {

  /**
   * Volcano {@code pkg/scheduler/plugins/nodeorder/nodeorder.go calculateWeight()}: the weights
   * when the configuration names none.
   */
  private static final Map<String, Integer> NODEORDER_DEFAULTS =
      orderedMap(
          "leastrequested", 1,
          "mostrequested", 0,
          "nodeaffinity", 2,
          "podaffinity", 2,
          "balancedresource", 1,
          "tainttoleration", 3,
          "imagelocality", 1,
          "podtopologyspread", 2);

  public VolcanoConfig {
    nodeorder = Map.copyOf(nodeorder);
    binpackResources = Map.copyOf(binpackResources);
  }

  /**
   * Volcano's default configuration with the vNPU extender merged in, as {@code vnpu
   * volcano-config} prints it for a cluster (docs/install.md).
   */
  public static VolcanoConfig shipped() {
    return parse(
        VolcanoSchedulerConf.merge(
            VolcanoSchedulerConf.volcanoDefault(), "http://vnpu-scheduler", Duration.ofSeconds(1)));
  }

  /** Reads a {@code volcano-scheduler.conf}. */
  public static VolcanoConfig parse(JsonNode config) {
    Map<String, Integer> nodeorder = Map.of();
    int binpackWeight = 0;
    Map<String, Integer> binpack = Map.of();
    for (JsonNode tier : config.path("tiers")) {
      for (JsonNode plugin : tier.path("plugins")) {
        JsonNode arguments = plugin.path("arguments");
        switch (plugin.path("name").asText()) {
          case "nodeorder" -> {
            Map<String, Integer> weights = new LinkedHashMap<>(NODEORDER_DEFAULTS);
            weights.replaceAll((score, weight) -> arguments.path(score + ".weight").asInt(weight));
            nodeorder = weights;
          }
          case "binpack" -> {
            // Volcano pkg/scheduler/plugins/binpack/binpack.go calculateWeight(): cpu and memory
            // 1 each, plus binpack.resources, each weighted by binpack.resources.<name>.
            binpackWeight = arguments.path("binpack.weight").asInt(1);
            Map<String, Integer> resources = new LinkedHashMap<>();
            resources.put(PodRequests.CPU, arguments.path("binpack.cpu").asInt(1));
            resources.put(PodRequests.MEMORY, arguments.path("binpack.memory").asInt(1));
            for (String name : arguments.path("binpack.resources").asText("").split(",")) {
              if (!name.isBlank()) {
                resources.put(
                    name.strip(), arguments.path("binpack.resources." + name.strip()).asInt(1));
              }
            }
            binpack = resources;
          }
          default -> {}
        }
      }
    }
    return new VolcanoConfig(nodeorder, binpackWeight, binpack);
  }

  /** The weight of nodeorder's {@code score}; 0 when it is off. */
  int weight(String score) {
    return nodeorder.getOrDefault(score, 0);
  }

  private static Map<String, Integer> orderedMap(Object... entries) {
    Map<String, Integer> map = new LinkedHashMap<>();
    for (int i = 0; i < entries.length; i += 2) {
      map.put((String) entries[i], (Integer) entries[i + 1]);
    }
    return map;
  }
}
