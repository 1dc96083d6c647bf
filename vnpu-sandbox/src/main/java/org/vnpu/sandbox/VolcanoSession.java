package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kube.NodeBook;
import org.vnpu.kube.PodBindings;
import org.vnpu.kube.PodRequests;

/**
 * Places a pod as Volcano's {@code allocate} action does in one session with the extender plugin,
 * step by step after {@code pkg/scheduler/actions/allocate/allocate.go}: the resource check and the
 * extender's {@code predicate} per node, node scores (the configured {@code nodeorder} and {@code
 * binpack} scores plus the extender's {@code prioritize}), {@code allocateFunc} on the best, then
 * the binding, which the cache runs apart while the session goes on. A pod that fits no node is
 * then taken up by the session's {@code preempt} action ({@link #preempt}).
 */
final class VolcanoSession implements SchedulingProtocol {

  private static final Logger LOG = LoggerFactory.getLogger(VolcanoSession.class);

  /** The extender's predicate code for {@code UnschedulableAndUnresolvable}. */
  private static final int UNRESOLVABLE = 3;

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
    ObjectNode task = VolcanoTasks.taskInfo(pod);
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
      JsonNode answer = predicate(task, node);
      if (answer.path("code").asInt() == 0) {
        fitting.add(node);
      } else {
        reasons.put(node.name(), answer.path("status").asText());
      }
    }
    if (fitting.isEmpty()) {
      String summary = SchedulingProtocol.summary(nodes.size(), reasons);
      return preempt(pod, task, nodes).orElse(Attempt.notBound(summary));
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
      return pipeline(task, best, "until the pods releasing there are gone");
    }
    // statement.go Allocate: the task is Allocated on its node when the handlers are called.
    task.put("NodeName", best.name());
    task.put("Status", VolcanoTasks.ALLOCATED);
    String refused =
        extender.post("/volcano/allocateFunc", Map.of("task", task)).path("errorMessage").asText();
    if (!refused.isEmpty()) {
      // allocate.go: a failed Allocate is rolled back with stmt.UnAllocate, whose unallocate calls
      // every plugin's deallocate handler, the extender's deallocateFunc among them.
      extender.post("/volcano/deallocateFunc", Map.of("task", task));
      return Attempt.notBound(refused);
    }
    // framework/session.go dispatch → cache.go AddBindTask: the task is Binding on its node in the
    // cache, and BindTask binds it in a goroutine while the session goes on. A binding that fails
    // leaves the pod to a later session (cache.go Bind: taskUnschedulable, resyncTask); the
    // extender plugin has no PreBind to roll back, so deallocateFunc is not called.
    return Attempt.binding(best.name(), () -> bind(pod, best.name()));
  }

  /**
   * {@code pkg/scheduler/cache/cache.go DefaultBinder.Bind}: the binding carries the pod's
   * annotations as the session's cache had them, which the API server merges onto the pod.
   */
  private String bind(Pod pod, String node) {
    try {
      PodBindings.bind(
          client,
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          pod.getMetadata().getUid(),
          node,
          pod.getMetadata().getAnnotations());
      return null;
    } catch (KubernetesClientException e) {
      return e.getMessage();
    }
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
    return byScore(task, pod, candidates).get(0);
  }

  /**
   * {@code candidates} by their {@link #best} scores, highest first, nodes of equal score in the
   * order given ({@code util.SortNodes}).
   */
  private List<NodeBook> byScore(ObjectNode task, Pod pod, List<NodeBook> candidates)
      throws IOException, InterruptedException {
    List<Map<String, String>> names = candidates.stream().map(node -> name(node.name())).toList();
    JsonNode extenderScores =
        extender
            .post("/volcano/prioritize", Map.of("task", task, "nodes", names))
            .path("nodeScore");
    Map<NodeBook, Double> scores = new LinkedHashMap<>();
    for (NodeBook node : candidates) {
      scores.put(
          node,
          config.weight("leastrequested") * HostScores.leastAllocated(node, pod)
              + config.weight("mostrequested") * HostScores.mostAllocated(node, pod)
              + config.weight("balancedresource") * HostScores.balanced(node, pod)
              + HostScores.volcanoBinpack(node, pod, config)
              + extenderScores.path(node.name()).asDouble());
    }
    List<NodeBook> ordered = new ArrayList<>(candidates);
    ordered.sort(Comparator.comparingDouble((NodeBook node) -> scores.get(node)).reversed());
    return ordered;
  }

  /**
   * Pipelines the task onto {@code node}: framework/statement.go {@code Pipeline} records it on the
   * node in the session and calls every plugin's allocate handler, the extender plugin's
   * allocateFunc among them, with the task {@code Pipelined}; nothing binds it, and the next
   * session places the pod again. A refused allocateFunc leaves it unpipelined.
   */
  private Attempt pipeline(ObjectNode task, NodeBook node, String why)
      throws IOException, InterruptedException {
    task.put("NodeName", node.name());
    task.put("Status", VolcanoTasks.PIPELINED);
    String refused =
        extender.post("/volcano/allocateFunc", Map.of("task", task)).path("errorMessage").asText();
    if (!refused.isEmpty()) {
      return Attempt.notBound(refused);
    }
    LOG.info("pod {} pipelined onto node {} {}", task.path("Name").asText(), node.name(), why);
    // api/job_info.go TaskSchedulingReason: what Volcano writes on a pipelined pod.
    return Attempt.notBound(
        "Pod "
            + task.path("Namespace").asText()
            + "/"
            + task.path("Name").asText()
            + " can possibly be assigned to "
            + node.name()
            + ", "
            + SchedulingProtocol.PIPELINED
            + " and minAvailable is satisfied");
  }

  /**
   * Volcano's {@code preempt} action for a pod its {@code allocate} left pending, step by step
   * after {@code pkg/scheduler/actions/preempt/preempt.go} (master since commit 5a15213; each step
   * names its function):
   *
   * <ol>
   *   <li>{@code taskEligibleToPreempt}: a pod with {@code preemptionPolicy: Never} preempts
   *       nothing ({@code PrePredicateFn} next: none of the configured plugins the sandbox keeps
   *       registers one for pods like these);
   *   <li>{@code PredicateNodes} with {@code PredicateForPreemptAction}: every node whose predicate
   *       did not fail as {@code UnschedulableAndUnresolvable} (the extender's code 3) — no
   *       resource check, evictions may make the room;
   *   <li>{@code normalPreempt}: the nodes by score ({@code PrioritizeNodes}, {@code SortNodes});
   *       on each, the preemptees ({@link #preemptees}) and the victims of the first tier's plugins
   *       ({@link #victims}), checked by {@code ValidateVictims}; then evicted in the session one
   *       at a time, lowest priority first ({@code BuildVictimsPriorityQueue}), until {@code
   *       preemptorFitsOnNode}: the request within the node's future idle and the predicate passing
   *       with the evicted tasks {@code Releasing}; then the pod is pipelined there, the evictions
   *       committed when its allocate handlers accept and discarded when they refuse; a node where
   *       it does not fit is skipped for the next.
   * </ol>
   *
   * The queue is the default one for every pod (no {@code proportion} limit), so {@code
   * Allocatable} always holds. The {@code reclaim} action (between queues) is not emulated.
   */
  private Optional<Attempt> preempt(Pod pod, ObjectNode task, Collection<NodeBook> nodes)
      throws IOException, InterruptedException {
    if ("Never".equals(pod.getSpec().getPreemptionPolicy())) {
      return Optional.empty();
    }
    List<NodeBook> candidates = new ArrayList<>();
    for (NodeBook node : nodes) {
      if (predicate(task, node).path("code").asInt() != UNRESOLVABLE) {
        candidates.add(node);
      }
    }
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    Map<String, BigDecimal> request = PodRequests.of(pod);
    for (NodeBook node : byScore(task, pod, candidates)) {
      List<Pod> victims = victims(pod, task, VolcanoTasks.preemptees(pod, node));
      if (victims.isEmpty()
          || !VolcanoTasks.withEvicted(node, victims).volcanoShortfall(request, true).isEmpty()) {
        continue; // ValidateVictims
      }
      Deque<Pod> queue =
          new ArrayDeque<>(victims.stream().sorted(VolcanoTasks.EVICTION_ORDER).toList());
      List<Pod> evicted = new ArrayList<>();
      boolean fits = fits(task, request, node);
      while (!fits && !queue.isEmpty()) {
        evicted.add(queue.pop());
        fits = fits(task, request, VolcanoTasks.withEvicted(node, evicted));
      }
      if (fits) {
        // Statement.Evict in the session, Statement.Pipeline, then preempt.go's Commit when the
        // preemptor's job is pipelined, else Discard (unevict: the victims stay).
        for (Pod victim : evicted) {
          releasing(victim);
        }
        Attempt attempt =
            pipeline(
                task,
                node,
                "after preempting "
                    + evicted.stream().map(SchedulingProtocol::key).toList()
                    + "; waits until they are gone");
        if (ScenarioCluster.waits(attempt.reason())) {
          evicted.forEach(this::evict);
        } else {
          for (Pod victim : evicted) {
            unevicted(victim);
          }
        }
        return Optional.of(attempt);
      }
    }
    return Optional.empty();
  }

  /**
   * {@code framework/session_plugins.go Preemptable} over the first tier of the configuration the
   * chart merges ({@code VolcanoSchedulerConf}): {@code priority} (pods of a lower priority, {@code
   * plugins/priority/priority.go}), {@code gang} ({@code enablePreemptable: false} in Volcano's
   * default configuration, not asked), {@code conformance} (no pod of {@code kube-system} or of a
   * system-critical class, {@code plugins/conformance/conformance.go}) and the extender ({@code
   * preemptable} verb). The victims are those all of them name; a plugin that abstains (status 0)
   * is skipped, and one that names none leaves none. The later tiers' plugins have no victims of
   * their own in that configuration. {@code priority} compares job priorities; a pod without a
   * PodGroup gets one from Volcano's controller with the pod's priority class, so the job's
   * priority is the pod's {@code spec.priority}.
   */
  private List<Pod> victims(Pod preemptor, ObjectNode task, List<Pod> preemptees)
      throws IOException, InterruptedException {
    int priority = SchedulingProtocol.priority(preemptor);
    List<Pod> victims =
        preemptees.stream()
            .filter(pod -> SchedulingProtocol.priority(pod) < priority)
            .filter(pod -> !"kube-system".equals(pod.getMetadata().getNamespace()))
            .filter(pod -> !VolcanoTasks.isCritical(pod.getSpec().getPriorityClassName()))
            .toList();
    if (victims.isEmpty()) {
      return victims;
    }
    List<JsonNode> evictees = new ArrayList<>();
    for (Pod pod : victims) {
      evictees.add(VolcanoTasks.taskInfo(pod));
    }
    JsonNode answer =
        extender.post("/volcano/preemptable", Map.of("evictor", task, "evictees", evictees));
    if (answer.path("status").asInt() == 0) {
      return victims;
    }
    List<String> named = new ArrayList<>();
    answer.path("victims").forEach(victim -> named.add(victim.path("UID").asText()));
    return victims.stream().filter(pod -> named.contains(pod.getMetadata().getUid())).toList();
  }

  /**
   * {@code preempt.go preemptorFitsOnNode}: the request within the node's future idle and the
   * predicate passing on the node as the session sees it.
   */
  private boolean fits(ObjectNode task, Map<String, BigDecimal> request, NodeBook node)
      throws IOException, InterruptedException {
    return node.volcanoShortfall(request, true).isEmpty()
        && predicate(task, node).path("code").asInt() == 0;
  }

  /**
   * {@code framework/statement.go Evict}: the victim's task becomes {@code Releasing} in the
   * session, and every plugin's deallocate handler is called with it, the extender's {@code
   * deallocateFunc} among them, before the preemptor is pipelined.
   */
  private void releasing(Pod victim) throws IOException, InterruptedException {
    ObjectNode task = VolcanoTasks.taskInfo(victim);
    task.put("Status", VolcanoTasks.RELEASING);
    extender.post("/volcano/deallocateFunc", Map.of("task", task));
  }

  /**
   * {@code framework/statement.go unevict}, on {@code Discard}: the victim's task is running again
   * in the session, and every plugin's allocate handler is called with it.
   */
  private void unevicted(Pod victim) throws IOException, InterruptedException {
    ObjectNode task = VolcanoTasks.taskInfo(victim);
    extender.post("/volcano/allocateFunc", Map.of("task", task));
  }

  /**
   * {@code cache/cache.go defaultEvictor.Evict}: an {@code Evict} event, the conditions {@code
   * Ready=False} (reason {@code Evict}) and {@code DisruptionTarget=True} (reason {@code
   * PreemptionByScheduler}) on the pod's status, then its deletion.
   */
  private void evict(Pod victim) {
    String message = "Pod is evicted, because of preempt";
    try {
      PodWrites.setConditions(
          client,
          victim,
          List.of(
              PodWrites.condition("Ready", "False", "Evict", message),
              PodWrites.condition(
                  "DisruptionTarget",
                  "True",
                  "PreemptionByScheduler",
                  "volcano: preempting to accommodate a higher priority pod")));
      PodWrites.record(client, victim, "Warning", "Evict", null, message, null);
      PodWrites.delete(client, victim);
    } catch (KubernetesClientException e) {
      LOG.warn("cannot evict pod {}: {}", SchedulingProtocol.key(victim), e.getMessage());
    }
  }

  /**
   * The extender's {@code predicate} for the task on {@code node}, which Volcano sends as its
   * {@code NodeInfo}: the name and the tasks on it, each with its status ({@link #taskInfo}).
   */
  private JsonNode predicate(ObjectNode task, NodeBook node)
      throws IOException, InterruptedException {
    ObjectNode info = ExtenderClient.JSON.createObjectNode().put("Name", node.name());
    ObjectNode tasks = info.putObject("Tasks");
    for (Pod pod : node.pods()) {
      tasks.set(SchedulingProtocol.key(pod), VolcanoTasks.taskInfo(pod));
    }
    return extender.post("/volcano/predicate", Map.of("task", task, "node", info));
  }

  private static Map<String, String> name(String node) {
    return Map.of("Name", node);
  }
}
