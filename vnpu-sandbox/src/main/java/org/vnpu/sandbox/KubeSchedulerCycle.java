package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Places a pod as kube-scheduler does with the chart's extender configuration: {@code filter} with
 * the candidate node names, {@code prioritize} over those that pass, and the extender's {@code
 * bind} verb on the highest score.
 */
final class KubeSchedulerCycle implements SchedulingProtocol {

  private final ExtenderClient extender;

  KubeSchedulerCycle(ExtenderClient extender) {
    this.extender = extender;
  }

  @Override
  public Attempt schedule(Pod pod, List<String> nodes) throws IOException, InterruptedException {
    JsonNode body = ExtenderClient.pod(pod);
    JsonNode filter = extender.post("/kube/filter", Map.of("Pod", body, "NodeNames", nodes));
    if (!filter.path("Error").asText().isEmpty()) {
      return Attempt.notBound(filter.path("Error").asText());
    }
    List<String> fitting = new ArrayList<>();
    filter.path("NodeNames").forEach(node -> fitting.add(node.asText()));
    if (fitting.isEmpty()) {
      Map<String, String> reasons = new LinkedHashMap<>();
      for (String field : List.of("FailedNodes", "FailedAndUnresolvableNodes")) {
        filter
            .path(field)
            .properties()
            .forEach(e -> reasons.put(e.getKey(), e.getValue().asText()));
      }
      return Attempt.notBound(SchedulingProtocol.summary(nodes.size(), reasons));
    }
    JsonNode scores = extender.post("/kube/prioritize", Map.of("Pod", body, "NodeNames", fitting));
    String best = fitting.get(0);
    long bestScore = Long.MIN_VALUE;
    for (JsonNode score : scores) {
      if (score.path("Score").asLong() > bestScore) {
        bestScore = score.path("Score").asLong();
        best = score.path("Host").asText();
      }
    }
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
}
