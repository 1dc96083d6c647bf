package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.kube.NodeBook;
import org.vnpu.kube.PodRequests;

/**
 * Places a pod as kube-scheduler does with the chart's profile and extender, step by step after
 * {@code pkg/scheduler/schedule_one.go}: the {@code NodeResourcesFit} filter, the extender's {@code
 * filter} over the nodes that pass, scores (the profile's host-resource scores plus the extender's
 * {@code prioritize}, weighted), and the extender's {@code bind} verb on the best.
 */
final class KubeSchedulerCycle implements SchedulingProtocol {

  /** kube-scheduler {@code extenderv1.MaxExtenderPriority}: extenders score 0..10. */
  private static final long MAX_EXTENDER_PRIORITY = 10;

  private final ExtenderClient extender;
  private final KubeSchedulerConfig config;

  /**
   * @param config the profile and extender configuration kube-scheduler runs with
   */
  KubeSchedulerCycle(ExtenderClient extender, KubeSchedulerConfig config) {
    this.extender = extender;
    this.config = config;
  }

  @Override
  public Attempt schedule(Pod pod, Collection<NodeBook> nodes)
      throws IOException, InterruptedException {
    Map<String, BigDecimal> request = PodRequests.of(pod);
    Map<String, String> reasons = new LinkedHashMap<>();
    Map<String, NodeBook> feasible = new LinkedHashMap<>();
    // schedule_one.go findNodesThatPassFilters(): NodeResourcesFit (noderesources/fit.go Filter).
    for (NodeBook node : nodes) {
      Map<String, String> short_ = node.kubeShortfall(request, config.ignoredResources());
      if (short_.isEmpty()) {
        feasible.put(node.name(), node);
      } else {
        reasons.put(node.name(), String.join(", ", short_.values()));
      }
    }
    // findNodesThatPassExtenders(): only nodes that passed the plugins reach the extender.
    List<String> fitting = new ArrayList<>();
    if (!feasible.isEmpty()) {
      JsonNode body = ExtenderClient.pod(pod);
      JsonNode filter =
          extender.post(
              "/kube/filter", Map.of("Pod", body, "NodeNames", List.copyOf(feasible.keySet())));
      if (!filter.path("Error").asText().isEmpty()) {
        return Attempt.notBound(filter.path("Error").asText());
      }
      filter.path("NodeNames").forEach(node -> fitting.add(node.asText()));
      for (String field : List.of("FailedNodes", "FailedAndUnresolvableNodes")) {
        filter
            .path(field)
            .properties()
            .forEach(e -> reasons.put(e.getKey(), e.getValue().asText()));
      }
    }
    if (fitting.isEmpty()) {
      return Attempt.notBound(SchedulingProtocol.summary(nodes.size(), reasons));
    }
    // schedulePod(): one feasible node is taken without scoring.
    String best = fitting.size() == 1 ? fitting.get(0) : best(pod, fitting, feasible);
    JsonNode bind =
        extender.post(
            "/kube/bind",
            Map.of(
                "PodName", pod.getMetadata().getName(),
                "PodNamespace", pod.getMetadata().getNamespace(),
                "PodUID", pod.getMetadata().getUid(),
                "Node", best));
    String error = bind.path("Error").asText();
    return error.isEmpty() ? Attempt.bound(best) : Attempt.notBound(error);
  }

  /**
   * schedule_one.go {@code prioritizeNodes()}: the profile's score plugins, each times its weight
   * (1 for both host-resource scores in the default profile), plus each extender's score times its
   * weight times {@code MaxNodeScore / MaxExtenderPriority}; {@code selectHost()} takes a random
   * one of the highest; the sandbox takes the first in name order, one of the outcomes
   * kube-scheduler may choose. Affinity, taint, topology-spread and image scores are the same on
   * every sandbox node (the loop refuses pods and nodes that would make them differ), so they are
   * left out.
   */
  private String best(Pod pod, List<String> fitting, Map<String, NodeBook> nodes)
      throws IOException, InterruptedException {
    Map<String, Long> scores = new LinkedHashMap<>();
    for (String name : fitting) {
      NodeBook node = nodes.get(name);
      long score = 0;
      if (config.scores(KubeSchedulerConfig.LEAST_ALLOCATED)) {
        score += HostScores.leastAllocated(node, pod);
      }
      if (config.scores(KubeSchedulerConfig.BALANCED)) {
        score += HostScores.balanced(node, pod);
      }
      scores.put(name, score);
    }
    JsonNode prioritized =
        extender.post(
            "/kube/prioritize", Map.of("Pod", ExtenderClient.pod(pod), "NodeNames", fitting));
    for (JsonNode host : prioritized) {
      scores.computeIfPresent(
          host.path("Host").asText(),
          (name, score) ->
              score
                  + host.path("Score").asLong()
                      * config.extenderWeight()
                      * (HostScores.MAX_NODE_SCORE / MAX_EXTENDER_PRIORITY));
    }
    long top = scores.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    return scores.entrySet().stream()
        .filter(e -> e.getValue() == top)
        .map(Map.Entry::getKey)
        .findFirst()
        .orElseThrow();
  }
}
