package org.vnpu.scheduler;

import static org.vnpu.scheduler.ExtenderRequests.text;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.request.PodManifest;
import org.vnpu.scheduler.ExtenderVerb.Answer;
import org.vnpu.scheduler.ExtenderVerb.BadRequest;

/**
 * kube-scheduler's extender protocol ({@code k8s.io/kube-scheduler/extender/v1}): {@code filter},
 * {@code prioritize} (0..10), {@code bind} and {@code preempt}. The Go structs have no JSON tags,
 * so keys are PascalCase.
 */
final class KubeProtocol {

  private static final int MAX_SCORE = 10;

  /** {@code ExtenderFilterResult}: one of NodeNames and Nodes is set, as the request had it. */
  record FilterResult(
      @JsonProperty("FailedNodes") Map<String, String> failedNodes,
      @JsonProperty("FailedAndUnresolvableNodes") Map<String, String> failedAndUnresolvableNodes,
      @JsonProperty("NodeNames") List<String> nodeNames,
      @JsonProperty("Nodes") JsonNode nodes,
      @JsonProperty("Error") String error) {}

  /** {@code HostPriority}. */
  record HostPriority(@JsonProperty("Host") String host, @JsonProperty("Score") long score) {}

  /** {@code ExtenderBindingResult}. */
  record BindingResult(@JsonProperty("Error") String error) {}

  /** {@code MetaPod}. */
  record MetaPod(@JsonProperty("UID") String uid) {}

  /** {@code MetaVictims}: one node's victims, by UID. */
  record MetaVictims(
      @JsonProperty("Pods") List<MetaPod> pods,
      @JsonProperty("NumPDBViolations") long numPdbViolations) {}

  /** {@code ExtenderPreemptionResult}: the candidate nodes kept, with the victims allowed. */
  record PreemptionResult(
      @JsonProperty("NodeNameToMetaVictims") Map<String, MetaVictims> nodeNameToMetaVictims) {}

  /**
   * {@code ExtenderPreemptionArgs}: the pod and, per candidate node, the victims kube-scheduler's
   * default preemption chose, by UID ({@code NodeNameToMetaVictims}, with {@code nodeCacheCapable})
   * or as whole pods ({@code NodeNameToVictims}).
   */
  record PreemptionArgs(PodManifest pod, Map<String, MetaVictims> victims) {

    static PreemptionArgs read(JsonNode request) throws BadRequest {
      PodManifest pod = ExtenderRequests.pod(request.path("Pod"), "Pod");
      JsonNode meta = request.path("NodeNameToMetaVictims");
      boolean byUid = meta.isObject();
      JsonNode byNode = byUid ? meta : request.path("NodeNameToVictims");
      if (!byNode.isObject()) {
        throw new BadRequest("neither NodeNameToMetaVictims nor NodeNameToVictims is given");
      }
      Map<String, MetaVictims> victims = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> node : byNode.properties()) {
        List<MetaPod> pods = new ArrayList<>();
        for (JsonNode victim : node.getValue().path("Pods")) {
          pods.add(new MetaPod(byUid ? text(victim, "UID") : text(victim.path("metadata"), "uid")));
        }
        victims.put(
            node.getKey(),
            new MetaVictims(pods, node.getValue().path("NumPDBViolations").asLong()));
      }
      return new PreemptionArgs(pod, victims);
    }
  }

  /** Where kube-scheduler's verbs are served. */
  static final String PREFIX = "/kube/";

  /**
   * {@code ExtenderArgs}: the pod and the candidate nodes, by name ({@code NodeNames}, with {@code
   * nodeCacheCapable}) or as whole Node objects ({@code Nodes.items}, kept to answer in kind).
   *
   * @param nodes the Node objects in the order of {@code nodeNames}, or null when sent by name
   */
  record ExtenderArgs(
      PodManifest pod, List<String> claims, List<String> nodeNames, List<JsonNode> nodes) {

    static ExtenderArgs read(JsonNode request) throws BadRequest {
      PodManifest pod = ExtenderRequests.pod(request.path("Pod"), "Pod");
      List<String> claims = ExtenderRequests.claimNames(request.path("Pod"));
      List<String> names = new ArrayList<>();
      if (request.path("NodeNames").isArray()) {
        request.path("NodeNames").forEach(name -> names.add(name.asText()));
        return new ExtenderArgs(pod, claims, names, null);
      }
      if (request.path("Nodes").path("items").isArray()) {
        List<JsonNode> nodes = new ArrayList<>();
        for (JsonNode node : request.path("Nodes").path("items")) {
          names.add(node.path("metadata").path("name").asText());
          nodes.add(node);
        }
        return new ExtenderArgs(pod, claims, names, nodes);
      }
      throw new BadRequest("neither NodeNames nor Nodes.items is given");
    }
  }

  /**
   * {@code ExtenderBindingArgs}: which pod goes to which node. The UID must match the stored pod;
   * the rest of the pod is read from the API server.
   */
  record ExtenderBindingArgs(String podName, String podNamespace, String podUid, String node) {

    static ExtenderBindingArgs read(JsonNode request) throws BadRequest {
      return new ExtenderBindingArgs(
          text(request, "PodName"),
          text(request, "PodNamespace"),
          request.path("PodUID").asText(),
          text(request, "Node"));
    }
  }

  private final Scheduler scheduler;
  private final ExtenderRequests requests;
  private final Leadership leadership;

  KubeProtocol(Scheduler scheduler, ExtenderRequests requests, Leadership leadership) {
    this.scheduler = scheduler;
    this.requests = requests;
    this.leadership = leadership;
  }

  /** The verbs by path. */
  Map<String, ExtenderVerb> verbs() {
    return Map.of(
        PREFIX + "filter",
        new ExtenderVerb(ExtenderVerb.NODE_LISTS, request -> filter(ExtenderArgs.read(request))),
        PREFIX + "prioritize",
        new ExtenderVerb(
            ExtenderVerb.NODE_LISTS, request -> prioritize(ExtenderArgs.read(request))),
        PREFIX + "bind",
        new ExtenderVerb(ExtenderVerb.SMALL, request -> bind(ExtenderBindingArgs.read(request))),
        PREFIX + "preempt",
        new ExtenderVerb(
            ExtenderVerb.NODE_LISTS, request -> preempt(PreemptionArgs.read(request))));
  }

  /**
   * Keeps the candidate nodes where evicting the offered victims that the extender allows makes
   * room on a chip, with those victims (docs/colocation.md). kube-scheduler then picks one of them,
   * evicts its victims and nominates the pod (pkg/scheduler/framework/preemption, callExtenders).
   * The pod's request and priority are the stored pod's, not the request's copy.
   */
  private Answer preempt(PreemptionArgs request) {
    Map<String, MetaVictims> kept = new LinkedHashMap<>();
    PodManifest preemptor;
    try {
      preemptor = requests.stored(request.pod());
    } catch (SchedulingException e) {
      return new Answer(new PreemptionResult(Map.of()), true);
    }
    for (Map.Entry<String, MetaVictims> node : request.victims().entrySet()) {
      List<String> offered = node.getValue().pods().stream().map(MetaPod::uid).toList();
      Preemption preemption;
      try {
        preemption = scheduler.preemption(preemptor, node.getKey(), offered);
      } catch (SchedulingException e) {
        return new Answer(new PreemptionResult(Map.of()), true);
      }
      if (preemption instanceof Preemption.Abstain) {
        return new Answer(new PreemptionResult(request.victims()), false);
      }
      if (preemption instanceof Preemption.Victims victims) {
        kept.put(
            node.getKey(),
            new MetaVictims(
                node.getValue().pods().stream()
                    .filter(pod -> victims.uids().contains(pod.uid()))
                    .toList(),
                node.getValue().numPdbViolations()));
      }
    }
    return new Answer(new PreemptionResult(kept), kept.isEmpty());
  }

  private Answer filter(ExtenderArgs request) {
    PodManifest pod = request.pod();
    List<String> names = request.nodeNames();
    Map<String, String> failed = new LinkedHashMap<>();
    Map<String, String> unresolvable = new LinkedHashMap<>();
    List<String> fitting = new ArrayList<>();
    try {
      for (Map.Entry<String, Verdict> verdict : scheduler.filter(pod, names).entrySet()) {
        if (verdict.getValue().fits()) {
          fitting.add(verdict.getKey());
        } else {
          (verdict.getValue().unresolvable() ? unresolvable : failed)
              .put(verdict.getKey(), verdict.getValue().reason());
        }
      }
    } catch (SchedulingException e) {
      names.forEach(name -> unresolvable.put(name, e.getMessage()));
    }
    FilterResult result;
    if (request.nodes() == null) {
      result = new FilterResult(failed, unresolvable, fitting, null, "");
    } else {
      ObjectNode nodes = JsonNodeFactory.instance.objectNode();
      var items = nodes.putArray("items");
      for (int i = 0; i < names.size(); i++) {
        if (fitting.contains(names.get(i))) {
          items.add(request.nodes().get(i));
        }
      }
      result = new FilterResult(failed, unresolvable, null, nodes, "");
    }
    return new Answer(result, fitting.isEmpty());
  }

  private Answer prioritize(ExtenderArgs request) {
    PodManifest pod = request.pod();
    List<String> names = request.nodeNames();
    Map<String, Double> scores;
    try {
      scores = scheduler.scores(pod, request.claims(), names);
    } catch (SchedulingException e) {
      scores = Map.of();
    }
    return new Answer(priorities(names, scores), false);
  }

  /**
   * The engine's scores (0..100) on the extender's scale (0..{@value #MAX_SCORE}), where the node
   * the engine would place the pod on stands alone at the top. The scale has eleven steps and
   * kube-scheduler picks at random among the nodes whose totals tie ({@code selectHost}'s reservoir
   * sampling, pkg/scheduler/schedule_one.go): rounded alone, the engine's best node would tie with
   * nodes it ranks below, and the pods kube-scheduler places before the extender sees their
   * bindings would scatter over them instead of going where the engine puts them one at a time. A
   * node the engine did not score (it does not fit) gets 0.
   */
  static List<HostPriority> priorities(List<String> names, Map<String, Double> scores) {
    String best = PlacementEngine.best(scores).orElse(null);
    List<HostPriority> priorities = new ArrayList<>();
    for (String name : names) {
      Double score = scores.get(name);
      long step =
          score == null
              ? 0
              : name.equals(best)
                  ? MAX_SCORE
                  : Math.min(MAX_SCORE - 1, Math.round(score * MAX_SCORE / 100));
      priorities.add(new HostPriority(name, step));
    }
    return priorities;
  }

  private Answer bind(ExtenderBindingArgs request) {
    if (!leadership.isLeader()) {
      return refusal(leadership.notLeader());
    }
    try {
      scheduler.bind(
          requests.placeable(
              requests.stored(request.podNamespace(), request.podName(), request.podUid()),
              request.node()),
          request.node());
      return new Answer(new BindingResult(""), false);
    } catch (SchedulingException e) {
      return refusal(e.getMessage());
    }
  }

  private static Answer refusal(String error) {
    return new Answer(new BindingResult(error), true);
  }
}
