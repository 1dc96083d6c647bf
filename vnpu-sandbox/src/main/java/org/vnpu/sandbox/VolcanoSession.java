package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
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
 * Places a pod as Volcano's {@code allocate} action does in one session with the extender plugin,
 * step by step after {@code pkg/scheduler/actions/allocate/allocate.go}: the resource check and the
 * extender's {@code predicate} per node, node scores (the configured {@code nodeorder} and {@code
 * binpack} scores plus the extender's {@code prioritize}), {@code allocateFunc} on the best, then
 * the binding; if the binding fails, {@code deallocateFunc} rolls the reservation back.
 */
final class VolcanoSession implements SchedulingProtocol {

  private final ExtenderClient extender;
  private final KubernetesClient client;
  private final VolcanoConfig config;

  /**
   * @param config the scores the Volcano scheduler is configured with
   */
  VolcanoSession(ExtenderClient extender, KubernetesClient client, VolcanoConfig config) {
    this.extender = extender;
    this.client = client;
    this.config = config;
  }

  @Override
  public Attempt schedule(Pod pod, Collection<NodeBook> nodes)
      throws IOException, InterruptedException {
    ObjectNode task = ExtenderClient.JSON.createObjectNode();
    task.set("Pod", ExtenderClient.pod(pod));
    Map<String, BigDecimal> request = PodRequests.of(pod);
    List<NodeBook> fitting = new ArrayList<>();
    Map<String, String> reasons = new LinkedHashMap<>();
    for (NodeBook node : nodes) {
      // allocate.go predicate(): InitResreq <= FutureIdle before any plugin is asked.
      List<String> short_ = node.volcanoShortfall(request, true);
      if (!short_.isEmpty()) {
        reasons.put(node.name(), "Insufficient " + short_.get(0));
        continue;
      }
      // then ssn.PredicateForAllocateAction(): the extender plugin's predicate verb.
      JsonNode answer =
          extender.post("/volcano/predicate", Map.of("task", task, "node", name(node.name())));
      if (answer.path("code").asInt() == 0) {
        fitting.add(node);
      } else {
        reasons.put(node.name(), answer.path("status").asText());
      }
    }
    if (fitting.isEmpty()) {
      return Attempt.notBound(SchedulingProtocol.summary(nodes.size(), reasons));
    }
    // allocate.go prioritizeNodes(): nodes where the pod fits in Idle come before those where it
    // only fits in FutureIdle; a gradient of one node is taken without scoring.
    List<NodeBook> idle =
        fitting.stream().filter(n -> n.volcanoShortfall(request, false).isEmpty()).toList();
    List<NodeBook> candidates = idle.isEmpty() ? fitting : idle;
    NodeBook best = candidates.size() == 1 ? candidates.get(0) : best(task, pod, candidates);
    // allocate.go allocateResourcesForTask(): only a pod that fits in Idle is allocated (and the
    // extender's allocateFunc called); otherwise it is pipelined until the releasing pods are gone.
    if (idle.isEmpty()) {
      return Attempt.notBound(
          "pipelined onto " + best.name() + " until the pods releasing there are gone");
    }
    task.put("NodeName", best.name());
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
                  .withName(best.name())
                  .endTarget()
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      extender.post("/volcano/deallocateFunc", Map.of("task", task));
      return Attempt.notBound("binding to " + best.name() + " failed: " + e.getMessage());
    }
    return Attempt.bound(best.name());
  }

  /**
   * {@code pkg/scheduler/util/scheduler_helper.go PrioritizeNodes()}: each node's score is the sum
   * of the node-order scores (nodeorder's, each times its weight, and binpack's) and the batch
   * scores (the extender's prioritize); {@code SelectBestNodeAndScore()} takes a random one of the
   * highest; the sandbox takes the first in name order, one of the outcomes Volcano may choose, so
   * that a demo run can be repeated. Affinity, taint, topology-spread and image scores are the same
   * on every sandbox node (the loop refuses pods and nodes that would make them differ), so they
   * are left out.
   */
  private NodeBook best(ObjectNode task, Pod pod, List<NodeBook> candidates)
      throws IOException, InterruptedException {
    List<Map<String, String>> names = candidates.stream().map(node -> name(node.name())).toList();
    JsonNode extenderScores =
        extender
            .post("/volcano/prioritize", Map.of("task", task, "nodes", names))
            .path("nodeScore");
    NodeBook best = null;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (NodeBook node : candidates) {
      double score =
          config.weight("leastrequested") * HostScores.leastAllocated(node, pod)
              + config.weight("mostrequested") * HostScores.mostAllocated(node, pod)
              + config.weight("balancedresource") * HostScores.balanced(node, pod)
              + HostScores.volcanoBinpack(node, pod, config)
              + extenderScores.path(node.name()).asDouble();
      if (score > bestScore) {
        best = node;
        bestScore = score;
      }
    }
    return best;
  }

  private static Map<String, String> name(String node) {
    return Map.of("Name", node);
  }
}
