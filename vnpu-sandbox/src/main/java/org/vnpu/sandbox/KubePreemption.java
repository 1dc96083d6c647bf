package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kube.NodeBook;

/**
 * kube-scheduler's {@code DefaultPreemption} post-filter for a pod no node took, step by step after
 * {@code pkg/scheduler/framework/preemption/preemption.go Evaluator.Preempt} and {@code
 * plugins/defaultpreemption/default_preemption.go} (each step names its function):
 *
 * <ol>
 *   <li>{@code PodEligibleToPreemptOthers}: not with {@code preemptionPolicy: Never}, nor while a
 *       lower-priority pod on the pod's nominated node is still terminating by preemption;
 *   <li>{@code findCandidates}: the nodes whose filter status is {@code Unschedulable} (not the
 *       extender's {@code FailedAndUnresolvableNodes}), each dry run ({@code DryRunPreemption},
 *       {@code SelectVictimsOnNode}): every lower-priority pod removed, the filter plugins asked,
 *       then the pods added back, most important first, as long as the pod still passes; a node
 *       that needs no victim is no candidate ("expected at least one victim pod"). Only the plugins
 *       decide here: a node whose vNPU counts suffice needs no victim, however full its chips
 *       (docs/colocation.md);
 *   <li>{@code callExtenders}: the extender's {@code preempt} verb keeps the candidates it can use,
 *       with its victims;
 *   <li>{@code SelectCandidate} ({@code pickOneNodeForPreemption}): fewest PDB violations, lowest
 *       highest victim priority, lowest priority sum, fewest victims, latest start of the highest
 *       priority victims, then the first;
 *   <li>{@code prepareCandidate}: each victim gets the {@code DisruptionTarget} condition, is
 *       deleted, and gets a {@code Preempted} event; lower-priority pods nominated to the node lose
 *       their nomination; the pod is nominated to the node.
 * </ol>
 *
 * The sandbox checks every node (upstream dry-runs at least 100, from a random offset), reads
 * candidates in name order where upstream iterates a map, and runs the preparation synchronously
 * (the {@code SchedulerAsyncPreemption} gate off). It has no PodDisruptionBudgets: with one in the
 * cluster it refuses to preempt rather than ignore it.
 */
final class KubePreemption {

  private static final Logger LOG = LoggerFactory.getLogger(KubePreemption.class);

  private final ExtenderClient extender;
  private final KubernetesClient client;
  private final BiFunction<Pod, NodeBook, Map<String, String>> plugins;

  /**
   * @param plugins why a pod does not pass the filter plugins on a node as booked ({@code
   *     RunFilterPluginsWithNominatedPods}); empty when it passes
   */
  KubePreemption(
      ExtenderClient extender,
      KubernetesClient client,
      BiFunction<Pod, NodeBook, Map<String, String>> plugins) {
    this.extender = extender;
    this.client = client;
    this.plugins = plugins;
  }

  /** A node's victims, most important first. */
  record Candidate(String node, List<Pod> victims) {}

  /**
   * {@code Evaluator.Preempt} for {@code pod}, which {@code filtered} shows no node took; {@code
   * unschedulable} is the cycle's own message, to which the preemption's is added.
   */
  SchedulingProtocol.Attempt postFilter(
      Pod pod,
      Collection<NodeBook> nodes,
      KubeSchedulerCycle.Filtered filtered,
      String unschedulable)
      throws IOException, InterruptedException {
    String ineligible = ineligible(pod, nodes, filtered);
    if (ineligible != null) {
      return SchedulingProtocol.Attempt.notBound(unschedulable + "; preemption: " + ineligible);
    }
    Map<String, String> statuses = new LinkedHashMap<>();
    List<Candidate> candidates = new ArrayList<>();
    for (NodeBook node : nodes) {
      if (!filtered.reasons().containsKey(node.name())
          || filtered.unresolvable().contains(node.name())) {
        statuses.put(node.name(), "Preemption is not helpful for scheduling");
        continue;
      }
      List<Pod> victims = new ArrayList<>();
      String status = selectVictimsOnNode(pod, node, victims);
      if (status == null) {
        candidates.add(new Candidate(node.name(), victims));
      } else {
        statuses.put(node.name(), status);
      }
    }
    if (candidates.isEmpty()) {
      return SchedulingProtocol.Attempt.notBound(
          unschedulable + "; preemption: " + SchedulingProtocol.summary(nodes.size(), statuses),
          "");
    }
    if (!client.policy().v1().podDisruptionBudget().inAnyNamespace().list().getItems().isEmpty()) {
      return SchedulingProtocol.Attempt.notBound(
          unschedulable
              + "; the sandbox does not emulate how kube-scheduler's preemption weighs"
              + " PodDisruptionBudgets");
    }
    Optional<List<Candidate>> kept = callExtender(pod, candidates, nodes);
    if (kept.isEmpty()) {
      return SchedulingProtocol.Attempt.notBound(
          unschedulable + "; preemption: the extender's preempt verb failed");
    }
    if (kept.get().isEmpty()) {
      return SchedulingProtocol.Attempt.notBound(
          unschedulable + "; preemption: no candidate node for preemption");
    }
    Candidate chosen = pickOneNodeForPreemption(kept.get());
    prepare(pod, chosen, nodes);
    return SchedulingProtocol.Attempt.notBound(
        unschedulable
            + "; nominated to "
            + chosen.node()
            + " after preempting "
            + chosen.victims().stream().map(SchedulingProtocol::key).toList()
            + "; waits until they are gone",
        chosen.node());
  }

  /**
   * {@code PodEligibleToPreemptOthers}: why {@code pod} may not preempt; null when it may. A pod
   * whose nominated node its filters now find unresolvable may preempt again.
   */
  static String ineligible(
      Pod pod, Collection<NodeBook> nodes, KubeSchedulerCycle.Filtered filtered) {
    if ("Never".equals(pod.getSpec().getPreemptionPolicy())) {
      return "not eligible due to preemptionPolicy=Never.";
    }
    String nominated = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    if (nominated != null && filtered.unresolvable().contains(nominated)) {
      return null;
    }
    boolean waiting =
        nodes.stream()
            .filter(node -> node.name().equals(nominated))
            .flatMap(node -> node.pods().stream())
            .anyMatch(
                other ->
                    SchedulingProtocol.priority(other) < SchedulingProtocol.priority(pod)
                        && terminatingByPreemption(other));
    return waiting ? "not eligible due to a terminating pod on the nominated node." : null;
  }

  /** {@code podTerminatingByPreemption}. */
  private static boolean terminatingByPreemption(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() != null
        && pod.getStatus() != null
        && pod.getStatus().getConditions().stream()
            .filter(c -> "DisruptionTarget".equals(c.getType()))
            .findFirst()
            .map(c -> "True".equals(c.getStatus()) && "PreemptionByScheduler".equals(c.getReason()))
            .orElse(false);
  }

  /**
   * {@code SelectVictimsOnNode}: fills {@code victims}, most important first, and returns null, or
   * returns why the node is no candidate.
   */
  private String selectVictimsOnNode(Pod pod, NodeBook node, List<Pod> victims) {
    List<Pod> potential =
        node.pods().stream()
            .filter(other -> SchedulingProtocol.priority(other) < SchedulingProtocol.priority(pod))
            .sorted(MORE_IMPORTANT_FIRST)
            .toList();
    if (potential.isEmpty()) {
      return "No preemption victims found for incoming pod";
    }
    List<Pod> remaining = new ArrayList<>(node.pods());
    remaining.removeAll(potential);
    Map<String, String> short_ = plugins.apply(pod, booked(node, remaining));
    if (!short_.isEmpty()) {
      return String.join(", ", short_.values());
    }
    for (Pod reprieved : potential) { // no PodDisruptionBudgets: every victim is non-violating
      remaining.add(reprieved);
      if (!plugins.apply(pod, booked(node, remaining)).isEmpty()) {
        remaining.remove(reprieved);
        victims.add(reprieved);
      }
    }
    return victims.isEmpty() ? "expected at least one victim pod on node " + node.name() : null;
  }

  private static NodeBook booked(NodeBook node, List<Pod> pods) {
    List<Pod> all = new ArrayList<>(pods);
    all.addAll(node.nominated());
    return node.withPods(all);
  }

  /**
   * {@code callExtenders} with the extender's {@code preempt} verb ({@code extender.go
   * ProcessPreemption}, {@code nodeCacheCapable}: victims by UID): the candidates it keeps, with
   * the victims it names, in the order it names them; empty when it failed (it is not {@code
   * ignorable}, so the cycle ends).
   */
  private Optional<List<Candidate>> callExtender(
      Pod pod, List<Candidate> candidates, Collection<NodeBook> nodes)
      throws IOException, InterruptedException {
    Map<String, Object> offered = new LinkedHashMap<>();
    for (Candidate candidate : candidates) {
      offered.put(
          candidate.node(),
          Map.of(
              "Pods",
              candidate.victims().stream()
                  .map(victim -> Map.of("UID", victim.getMetadata().getUid()))
                  .toList(),
              "NumPDBViolations",
              0));
    }
    JsonNode answer;
    try {
      answer =
          extender.post(
              "/kube/preempt",
              Map.of("Pod", ExtenderClient.pod(pod), "NodeNameToMetaVictims", offered));
    } catch (IOException e) {
      LOG.warn("preempt verb for pod {}: {}", SchedulingProtocol.key(pod), e.getMessage());
      return Optional.empty();
    }
    List<Candidate> kept = new ArrayList<>();
    for (Map.Entry<String, JsonNode> node : answer.path("NodeNameToMetaVictims").properties()) {
      // convertToVictims(): each UID must be a pod on that node; checkNode: at least one victim.
      List<Pod> onNode =
          nodes.stream()
              .filter(book -> book.name().equals(node.getKey()))
              .flatMap(book -> book.pods().stream())
              .toList();
      List<Pod> victims = new ArrayList<>();
      for (JsonNode victim : node.getValue().path("Pods")) {
        Optional<Pod> found =
            onNode.stream()
                .filter(p -> p.getMetadata().getUid().equals(victim.path("UID").asText()))
                .findFirst();
        if (found.isEmpty()) {
          LOG.warn(
              "extender claims to preempt pod (UID: {}) on node {}, but the pod is not found there",
              victim.path("UID").asText(),
              node.getKey());
          return Optional.empty();
        }
        victims.add(found.get());
      }
      if (victims.isEmpty()) {
        LOG.warn("expected at least one victim pod on node {}", node.getKey());
        return Optional.empty();
      }
      kept.add(new Candidate(node.getKey(), victims));
    }
    kept.sort(Comparator.comparing(Candidate::node));
    return Optional.of(kept);
  }

  /**
   * {@code pickOneNodeForPreemption} without PodDisruptionBudgets: each criterion keeps the
   * candidates with its best score, and the next breaks ties. {@code Pods[0]} is taken as the
   * highest priority, as upstream does.
   */
  static Candidate pickOneNodeForPreemption(List<Candidate> candidates) {
    List<ToLongFunction<Candidate>> criteria =
        List.of(
            c -> -SchedulingProtocol.priority(c.victims().get(0)),
            c ->
                -c.victims().stream()
                    .mapToLong(
                        victim ->
                            SchedulingProtocol.priority(victim) + (long) Integer.MAX_VALUE + 1)
                    .sum(),
            c -> -c.victims().size(),
            c -> earliestStartOfHighestPriority(c.victims()).toEpochMilli());
    List<Candidate> left = candidates;
    for (ToLongFunction<Candidate> criterion : criteria) {
      long best = left.stream().mapToLong(criterion).max().orElseThrow();
      left = left.stream().filter(c -> criterion.applyAsLong(c) == best).toList();
      if (left.size() == 1) {
        break;
      }
    }
    return left.get(0);
  }

  /**
   * {@code util.GetEarliestPodStartTime}: the earliest start among the highest-priority victims.
   */
  private static Instant earliestStartOfHighestPriority(List<Pod> victims) {
    int highest = victims.stream().mapToInt(SchedulingProtocol::priority).max().orElseThrow();
    return victims.stream()
        .filter(victim -> SchedulingProtocol.priority(victim) == highest)
        .map(KubePreemption::startTime)
        .min(Comparator.naturalOrder())
        .orElseThrow();
  }

  /**
   * {@code prepareCandidate}: the victims evicted ({@code PreemptPod}), then the nomination of
   * lower-priority pods nominated to the node cleared ({@code clearNominatedNodeName}).
   */
  void prepare(Pod pod, Candidate chosen, Collection<NodeBook> nodes) {
    for (Pod victim : chosen.victims()) {
      if (victim.getMetadata().getDeletionTimestamp() == null) {
        preemptPod(pod, chosen.node(), victim);
      }
    }
    nodes.stream()
        .filter(node -> node.name().equals(chosen.node()))
        .flatMap(node -> node.nominated().stream())
        .filter(other -> SchedulingProtocol.priority(other) < SchedulingProtocol.priority(pod))
        .forEach(this::clearNomination);
  }

  /**
   * {@code Evaluator.PreemptPod}: the {@code DisruptionTarget} condition (reason {@code
   * PreemptionByScheduler}), the deletion, and a {@code Preempted} event on the victim.
   */
  private void preemptPod(Pod preemptor, String node, Pod victim) {
    String scheduler =
        preemptor.getSpec().getSchedulerName() == null
            ? "default-scheduler"
            : preemptor.getSpec().getSchedulerName();
    try {
      PodWrites.setConditions(
          client,
          victim,
          List.of(
              PodWrites.condition(
                  "DisruptionTarget",
                  "True",
                  "PreemptionByScheduler",
                  scheduler + ": preempting to accommodate a higher priority pod")));
      PodWrites.delete(client, victim);
      PodWrites.record(
          client,
          victim,
          "Normal",
          "Preempted",
          "Preempting",
          "Preempted by pod " + preemptor.getMetadata().getUid() + " on node " + node,
          preemptor);
    } catch (KubernetesClientException e) {
      LOG.warn("cannot preempt pod {}: {}", SchedulingProtocol.key(victim), e.getMessage());
    }
  }

  private void clearNomination(Pod pod) {
    try {
      PodWrites.editStatus(
          client,
          pod,
          current ->
              new PodBuilder(current).editStatus().withNominatedNodeName(null).endStatus().build());
    } catch (KubernetesClientException e) {
      LOG.debug(
          "pod {}: cannot clear its nomination: {}", SchedulingProtocol.key(pod), e.getMessage());
    }
  }

  /**
   * {@code util.MoreImportantPod}: higher priority first, then the earlier started ({@code
   * GetPodStartTime}: {@code status.startTime}, or now when not started).
   */
  private static final Comparator<Pod> MORE_IMPORTANT_FIRST =
      Comparator.comparingInt(SchedulingProtocol::priority)
          .reversed()
          .thenComparing(KubePreemption::startTime);

  /**
   * {@code GetPodStartTime}: {@code status.startTime}, or now when it has none. The status is
   * written by whoever may write pods' status, so one that does not parse counts as none rather
   * than ending every scheduling round that reads it.
   */
  static Instant startTime(Pod pod) {
    String started = pod.getStatus() == null ? null : pod.getStatus().getStartTime();
    try {
      return started == null ? Instant.now() : Instant.parse(started);
    } catch (DateTimeParseException e) {
      return Instant.now();
    }
  }
}
