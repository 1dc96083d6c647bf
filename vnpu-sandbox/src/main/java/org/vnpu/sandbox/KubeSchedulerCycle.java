package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kube.NodeBook;
import org.vnpu.kube.PodRequests;

/**
 * Places a pod as kube-scheduler does with the chart's profile and extender, step by step after
 * {@code pkg/scheduler/schedule_one.go}: a pod nominated by an earlier preemption tries its node
 * first, then the {@code NodeResourcesFit} filter, the extender's {@code filter} over the nodes
 * that pass, scores (the profile's host-resource scores plus the extender's {@code prioritize},
 * weighted), and the extender's {@code bind} verb on the best. A pod no node takes goes to the
 * {@code DefaultPreemption} post-filter ({@link KubePreemption}).
 */
final class KubeSchedulerCycle implements SchedulingProtocol {

  private static final Logger LOG = LoggerFactory.getLogger(KubeSchedulerCycle.class);

  /** kube-scheduler {@code extenderv1.MaxExtenderPriority}: extenders score 0..10. */
  private static final long MAX_EXTENDER_PRIORITY = 10;

  private final ExtenderClient extender;
  private final KubeSchedulerConfig config;
  private final KubePreemption preemption;

  /**
   * @param client what the preemption evicts victims and writes events with
   * @param config the profile and extender configuration kube-scheduler runs with
   */
  KubeSchedulerCycle(ExtenderClient extender, KubernetesClient client, KubeSchedulerConfig config) {
    this.extender = extender;
    this.config = config;
    this.preemption = new KubePreemption(extender, client, this::shortfall);
  }

  /**
   * What filtering left of the nodes.
   *
   * @param fitting the nodes the plugins and the extender let through, in the nodes' order
   * @param reasons why each other node failed
   * @param unresolvable the failed nodes whose status is {@code UnschedulableAndUnresolvable} (the
   *     extender's {@code FailedAndUnresolvableNodes}): no preemption helps there
   * @param error the extender's error, which fails the whole cycle; empty when none
   */
  record Filtered(
      List<String> fitting, Map<String, String> reasons, Set<String> unresolvable, String error) {}

  @Override
  public Attempt schedule(Pod pod, Collection<NodeBook> nodes)
      throws IOException, InterruptedException {
    // findNodesThatFitPod(): a nominated node is evaluated alone first (evaluateNominatedNode);
    // only when it does not pass are all nodes filtered.
    String nominated = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    List<NodeBook> nominatedNode =
        nodes.stream().filter(node -> node.name().equals(nominated)).toList();
    if (!nominatedNode.isEmpty()) {
      Filtered filtered = filter(pod, nominatedNode);
      if (filtered.error().isEmpty() && !filtered.fitting().isEmpty()) {
        return bind(pod, nominated);
      }
    }
    Filtered filtered = filter(pod, nodes);
    if (!filtered.error().isEmpty()) {
      return Attempt.notBound(filtered.error());
    }
    List<String> fitting = filtered.fitting();
    if (fitting.isEmpty()) {
      return preemption.postFilter(
          pod, nodes, filtered, SchedulingProtocol.summary(nodes.size(), filtered.reasons()));
    }
    // schedulePod(): one feasible node is taken without scoring.
    Map<String, NodeBook> byName = new LinkedHashMap<>();
    nodes.forEach(node -> byName.put(node.name(), node));
    return bind(pod, fitting.size() == 1 ? fitting.get(0) : best(pod, fitting, byName));
  }

  /**
   * schedule_one.go {@code findNodesThatPassFilters()}, then {@code findNodesThatPassExtenders()}
   * over the nodes that passed the plugins.
   */
  private Filtered filter(Pod pod, Collection<NodeBook> nodes)
      throws IOException, InterruptedException {
    Map<String, String> reasons = new LinkedHashMap<>();
    Set<String> unresolvable = new TreeSet<>();
    List<String> feasible = new ArrayList<>();
    for (NodeBook node : nodes) {
      Map<String, String> short_ = shortfall(pod, node);
      if (short_.isEmpty()) {
        feasible.add(node.name());
      } else {
        reasons.put(node.name(), String.join(", ", short_.values()));
      }
    }
    List<String> fitting = new ArrayList<>();
    if (!feasible.isEmpty()) {
      JsonNode filter =
          extender.post(
              "/kube/filter", Map.of("Pod", ExtenderClient.pod(pod), "NodeNames", feasible));
      String error = filter.path("Error").asText();
      if (!error.isEmpty()) {
        return new Filtered(List.of(), reasons, unresolvable, error);
      }
      filter.path("NodeNames").forEach(node -> fitting.add(node.asText()));
      filter.path("FailedNodes").properties().forEach(e -> reasons.put(e.getKey(), text(e)));
      filter
          .path("FailedAndUnresolvableNodes")
          .properties()
          .forEach(
              e -> {
                reasons.put(e.getKey(), text(e));
                unresolvable.add(e.getKey());
              });
    }
    return new Filtered(fitting, reasons, unresolvable, "");
  }

  private static String text(Map.Entry<String, JsonNode> entry) {
    return entry.getValue().asText();
  }

  /**
   * The filter plugins as {@code RunFilterPluginsWithNominatedPods} runs them: {@code
   * NodeResourcesFit} ({@code noderesources/fit.go Filter}) on the node with the pods nominated
   * there of at least the pod's priority added ({@code framework/runtime/framework.go
   * addGENominatedPods}). The framework runs the filters once more without them; for resources that
   * pass is implied by this one, so it is left out.
   */
  private Map<String, String> shortfall(Pod pod, NodeBook node) {
    List<Pod> ahead =
        node.nominated().stream()
            .filter(other -> !other.getMetadata().getUid().equals(pod.getMetadata().getUid()))
            .filter(other -> SchedulingProtocol.priority(other) >= SchedulingProtocol.priority(pod))
            .map(
                other ->
                    new PodBuilder(other).editSpec().withNodeName(node.name()).endSpec().build())
            .toList();
    NodeBook booked =
        ahead.isEmpty()
            ? node
            : node.withPods(Stream.concat(node.pods().stream(), ahead.stream()).toList());
    return booked.kubeShortfall(PodRequests.of(pod), config.ignoredResources());
  }

  /**
   * The extender's {@code bind} verb, which kube-scheduler calls in the binding cycle it runs apart
   * from the scheduling cycle ({@code schedule_one.go ScheduleOne} → {@code bindingCycle} → {@code
   * bind} → {@code extendersBinding}).
   */
  private Attempt bind(Pod pod, String node) {
    return Attempt.binding(
        node,
        () -> {
          JsonNode bind =
              extender.post(
                  "/kube/bind",
                  Map.of(
                      "PodName", pod.getMetadata().getName(),
                      "PodNamespace", pod.getMetadata().getNamespace(),
                      "PodUID", pod.getMetadata().getUid(),
                      "Node", node));
          String error = bind.path("Error").asText();
          return error.isEmpty() ? null : error;
        });
  }

  /**
   * schedule_one.go {@code prioritizeNodes()}: the profile's score plugins, each times its weight
   * (1 for both host-resource scores in the default profile), plus each extender's score times its
   * weight times {@code MaxNodeScore / MaxExtenderPriority}; {@code selectHost()} takes a random
   * one of the highest; the sandbox takes the first in name order, one of the outcomes
   * kube-scheduler may choose. That choice hid what the real kube-scheduler did while the
   * extender's rounded scores tied many nodes: it scattered a burst's pods over them (ADR 0031);
   * since the extender gives its choice the top step alone, the two agree. Affinity, taint,
   * topology-spread and image scores are the same on every sandbox node (the loop refuses pods and
   * nodes that would make them differ), so they are left out.
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
    return selectHost(extender, pod, scores, config.extenderWeight());
  }

  /**
   * The extender's {@code prioritize} over the nodes of {@code scores} added to their plugin scores
   * ({@code prioritizeNodes()}: times its weight times {@code MaxNodeScore / MaxExtenderPriority};
   * an extender whose {@code prioritize} fails gives no score and the cycle goes on, ignorable or
   * not: "Prioritization errors from extender can be ignored"), then {@code selectHost()}: the
   * first of the highest in the map's order.
   */
  static String selectHost(
      ExtenderClient extender, Pod pod, Map<String, Long> scores, long extenderWeight)
      throws InterruptedException {
    JsonNode prioritized;
    try {
      prioritized =
          extender.post(
              "/kube/prioritize",
              Map.of("Pod", ExtenderClient.pod(pod), "NodeNames", List.copyOf(scores.keySet())));
    } catch (IOException e) {
      LOG.info(
          "no score from the extender for pod {}: {}", SchedulingProtocol.key(pod), e.getMessage());
      prioritized = JsonNodeFactory.instance.arrayNode();
    }
    for (JsonNode host : prioritized) {
      scores.computeIfPresent(
          host.path("Host").asText(),
          (name, score) ->
              score
                  + host.path("Score").asLong()
                      * extenderWeight
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
