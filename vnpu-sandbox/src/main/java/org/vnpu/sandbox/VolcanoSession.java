package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Places a pod as Volcano's extender plugin does in one session: {@code predicate} for every node,
 * {@code prioritize} over those that pass, {@code allocateFunc} on the best, then Volcano binds the
 * pod itself; if the binding fails, {@code deallocateFunc} rolls the reservation back.
 */
final class VolcanoSession implements SchedulingProtocol {

  private final ExtenderClient extender;
  private final KubernetesClient client;

  VolcanoSession(ExtenderClient extender, KubernetesClient client) {
    this.extender = extender;
    this.client = client;
  }

  @Override
  public Attempt schedule(Pod pod, List<String> nodes) throws IOException, InterruptedException {
    ObjectNode task = ExtenderClient.JSON.createObjectNode();
    task.set("Pod", ExtenderClient.pod(pod));
    List<Map<String, String>> fitting = new ArrayList<>();
    Map<String, String> reasons = new LinkedHashMap<>();
    for (String node : nodes) {
      JsonNode answer =
          extender.post("/volcano/predicate", Map.of("task", task, "node", name(node)));
      if (answer.path("code").asInt() == 0) {
        fitting.add(name(node));
      } else {
        reasons.put(node, answer.path("status").asText());
      }
    }
    if (fitting.isEmpty()) {
      return Attempt.notBound(SchedulingProtocol.summary(nodes.size(), reasons));
    }
    JsonNode scores =
        extender
            .post("/volcano/prioritize", Map.of("task", task, "nodes", fitting))
            .path("nodeScore");
    String best = null;
    for (Map<String, String> node : fitting) {
      String candidate = node.get("Name");
      if (best == null || scores.path(candidate).asDouble() > scores.path(best).asDouble()) {
        best = candidate;
      }
    }
    task.put("NodeName", best);
    String refused =
        extender.post("/volcano/allocateFunc", Map.of("task", task)).path("errorMessage").asText();
    if (!refused.isEmpty()) {
      return Attempt.notBound(refused);
    }
    try {
      client
          .bindings()
          .inNamespace(pod.getMetadata().getNamespace())
          .resource(
              new BindingBuilder()
                  .withNewMetadata()
                  .withName(pod.getMetadata().getName())
                  .withUid(pod.getMetadata().getUid())
                  .endMetadata()
                  .withNewTarget()
                  .withKind("Node")
                  .withName(best)
                  .endTarget()
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      extender.post("/volcano/deallocateFunc", Map.of("task", task));
      return Attempt.notBound("binding to " + best + " failed: " + e.getMessage());
    }
    return Attempt.bound(best);
  }

  private static Map<String, String> name(String node) {
    return Map.of("Name", node);
  }
}
