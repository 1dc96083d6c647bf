package org.vnpu.scheduler;

import static org.vnpu.scheduler.ExtenderRequests.text;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.vnpu.core.request.PodManifest;
import org.vnpu.scheduler.ExtenderVerb.Answer;
import org.vnpu.scheduler.ExtenderVerb.BadRequest;

/**
 * Volcano's {@code extender} plugin protocol ({@code pkg/scheduler/plugins/extender/argument.go}):
 * {@code predicate} (message under {@code status}, code 2 or 3), {@code prioritize} (0..100),
 * {@code allocateFunc}, {@code deallocateFunc}, {@code preemptable}, {@code reclaimable}, {@code
 * onSessionOpen}, {@code onSessionClose}.
 */
final class VolcanoProtocol {

  /**
   * {@code PredicateRequest}: the task's pod, one node's name, and the UIDs of the node's tasks the
   * session counts as leaving: those of its {@code NodeInfo.Tasks} ({@code api/node_info.go}) whose
   * status is {@code Releasing} ({@code api/types.go TaskStatus}), pods being deleted or evicted by
   * the session's preempt or reclaim action.
   */
  record PredicateRequest(PodManifest pod, String node, Set<String> releasing) {
    /** What {@link #read} reads of the body; the node's tasks' pods are not parsed. */
    static final KeptFields READ =
        KeptFields.of("task/Pod", "node/Name", "node/Tasks/*/Status", "node/Tasks/*/UID");

    static PredicateRequest read(JsonNode request) throws BadRequest {
      Set<String> releasing = new HashSet<>();
      for (JsonNode task : request.path("node").path("Tasks")) {
        if (task.path("Status").asInt() == RELEASING) {
          releasing.add(text(task, "UID"));
        }
      }
      return new PredicateRequest(
          ExtenderRequests.pod(request.path("task").path("Pod"), "task.Pod"),
          text(request.path("node"), "Name"),
          releasing);
    }
  }

  /** Volcano's {@code TaskStatus} {@code Releasing}, {@code 1 << 6} ({@code api/types.go}). */
  static final int RELEASING = 1 << 6;

  /**
   * Volcano's {@code TaskStatus} {@code Pipelined}, {@code 1 << 2}: the status {@code
   * Statement.Pipeline} gives the task before it calls the allocate handlers.
   */
  static final int PIPELINED = 1 << 2;

  /** {@code PrioritizeRequest}: the task's pod and the names of the candidate nodes. */
  record PrioritizeRequest(PodManifest pod, List<String> nodes) {
    /** What {@link #read} reads of the body: no node's tasks. */
    static final KeptFields READ = KeptFields.of("task/Pod", "nodes/*/Name");

    static PrioritizeRequest read(JsonNode request) throws BadRequest {
      List<String> names = new ArrayList<>();
      for (JsonNode node : request.path("nodes")) {
        names.add(text(node, "Name"));
      }
      return new PrioritizeRequest(
          ExtenderRequests.pod(request.path("task").path("Pod"), "task.Pod"), names);
    }
  }

  /**
   * The {@code framework.Event} of {@code allocateFunc} and {@code deallocateFunc}: the task's pod,
   * the node it was allocated to (empty when deallocated before one was), and its {@code Status}:
   * pipelined there rather than allocated, or releasing because the session evicts it.
   */
  record EventRequest(PodManifest pod, String node, int status) {
    static EventRequest read(JsonNode request) throws BadRequest {
      return new EventRequest(
          ExtenderRequests.pod(request.path("task").path("Pod"), "task.Pod"),
          request.path("task").path("NodeName").asText(),
          request.path("task").path("Status").asInt());
    }

    /** {@code Statement.Pipeline}: placed where pods are still releasing, not bound. */
    boolean pipelined() {
      return status == PIPELINED;
    }

    /** {@code Statement.Evict}: the session evicts this task for a preemptor or a reclaimer. */
    boolean releasing() {
      return status == RELEASING;
    }
  }

  /**
   * {@code PreemptableRequest} and {@code ReclaimableRequest}: the evictor's pod and the tasks
   * Volcano's preempt or reclaim action would evict from one node ({@code
   * pkg/scheduler/actions/preempt/preempt.go normalPreempt}), each a {@code TaskInfo} with its pod.
   */
  record EvictionRequest(PodManifest evictor, List<JsonNode> evictees) {
    static EvictionRequest read(JsonNode request) throws BadRequest {
      List<JsonNode> evictees = new ArrayList<>();
      request.path("evictees").forEach(evictees::add);
      return new EvictionRequest(
          ExtenderRequests.pod(request.path("evictor").path("Pod"), "evictor.Pod"), evictees);
    }
  }

  /**
   * {@code PreemptableResponse} and {@code ReclaimableResponse}: the tasks that may go, as they
   * were sent, and a status: 1 permits, 0 abstains, -1 rejects ({@code
   * pkg/scheduler/plugins/util/util.go}).
   */
  record EvictionResponse(int status, List<JsonNode> victims) {}

  static final int PERMIT = 1;
  static final int ABSTAIN = 0;
  static final int REJECT = -1;

  /** {@code PredicateResponse}: code 0 fits, 2 may fit later, 3 never. */
  record PredicateResponse(String status, int code) {}

  /** {@code PrioritizeResponse}. */
  record PrioritizeResponse(Map<String, Double> nodeScore, String errorMessage) {}

  /** The answer of {@code allocateFunc} and {@code deallocateFunc}. */
  record ErrorResponse(String errorMessage) {}

  /** {@code OnSessionOpenResponse} and {@code OnSessionCloseResponse}: empty. */
  record EmptyResponse() {}

  private final Scheduler scheduler;
  private final ExtenderRequests requests;
  private final Leadership leadership;

  VolcanoProtocol(Scheduler scheduler, ExtenderRequests requests, Leadership leadership) {
    this.scheduler = scheduler;
    this.requests = requests;
    this.leadership = leadership;
  }

  /** The verbs by path. */
  Map<String, ExtenderVerb> verbs() {
    // The session (every job and node) is not what the ledger needs: never parsed.
    ExtenderVerb session = new ExtenderVerb(0, request -> new Answer(new EmptyResponse(), false));
    return Map.of(
        "/volcano/predicate",
        new ExtenderVerb(
            ExtenderVerb.FILTERED_NODE_LISTS,
            request -> predicate(PredicateRequest.read(request)),
            PredicateRequest.READ),
        "/volcano/prioritize",
        new ExtenderVerb(
            ExtenderVerb.FILTERED_NODE_LISTS,
            request -> prioritize(PrioritizeRequest.read(request)),
            PrioritizeRequest.READ),
        "/volcano/allocateFunc",
        new ExtenderVerb(ExtenderVerb.ONE_NODE, request -> allocate(EventRequest.read(request))),
        "/volcano/deallocateFunc",
        new ExtenderVerb(ExtenderVerb.ONE_NODE, request -> deallocate(EventRequest.read(request))),
        "/volcano/preemptable",
        new ExtenderVerb(
            ExtenderVerb.NODE_LISTS, request -> evictable(EvictionRequest.read(request))),
        "/volcano/reclaimable",
        new ExtenderVerb(
            ExtenderVerb.NODE_LISTS, request -> evictable(EvictionRequest.read(request))),
        "/volcano/onSessionOpen",
        session,
        "/volcano/onSessionClose",
        session);
  }

  /**
   * The evictees that may go for the evictor (docs/colocation.md). Volcano intersects the victims
   * of every plugin of a tier ({@code framework/session_plugins.go Preemptable}), then evicts them,
   * lowest priority first, until the evictor fits by its own count of resources and (since
   * Volcano's commit 5a15213) by the predicates, this extender's included, which then sees the
   * evicted tasks as {@code Releasing} ({@link #predicate}); so the answer names only the offline
   * vNPU pods that make room on a chip, with the pods without vNPUs. The evictor's request and
   * priority are the stored pod's, not the request's copy.
   */
  private Answer evictable(EvictionRequest request) throws BadRequest {
    Map<String, List<JsonNode>> byNode = new LinkedHashMap<>();
    Map<JsonNode, String> uids = new IdentityHashMap<>();
    for (JsonNode task : request.evictees()) {
      JsonNode pod = task.path("Pod");
      String node = task.path("NodeName").asText(pod.path("spec").path("nodeName").asText());
      if (node.isEmpty()) {
        throw new BadRequest("an evictee has neither NodeName nor Pod.spec.nodeName");
      }
      uids.put(task, text(pod.path("metadata"), "uid"));
      byNode.computeIfAbsent(node, name -> new ArrayList<>()).add(task);
    }
    if (byNode.isEmpty()) {
      return new Answer(new EvictionResponse(ABSTAIN, List.of()), false);
    }
    List<JsonNode> victims = new ArrayList<>();
    PodManifest evictor;
    try {
      evictor = requests.stored(request.evictor());
    } catch (SchedulingException e) {
      return new Answer(new EvictionResponse(REJECT, List.of()), true);
    }
    for (Map.Entry<String, List<JsonNode>> node : byNode.entrySet()) {
      Preemption preemption;
      try {
        preemption =
            scheduler.preemption(
                evictor, node.getKey(), node.getValue().stream().map(uids::get).toList());
      } catch (SchedulingException e) {
        return new Answer(new EvictionResponse(REJECT, List.of()), true);
      }
      if (preemption instanceof Preemption.Abstain) {
        return new Answer(new EvictionResponse(ABSTAIN, List.of()), false);
      }
      if (preemption instanceof Preemption.Victims allowed) {
        node.getValue().stream()
            .filter(task -> allowed.uids().contains(uids.get(task)))
            .forEach(victims::add);
      }
    }
    return victims.isEmpty()
        ? new Answer(new EvictionResponse(REJECT, List.of()), true)
        : new Answer(new EvictionResponse(PERMIT, victims), false);
  }

  /**
   * Judges the node without the tasks Volcano's session releases there: its preempt action evicts
   * victims one at a time and commits the evictions only once this predicate passes ({@code
   * actions/preempt/preempt.go normalPreempt}, {@code preemptorFitsOnNode}); its allocate action
   * pipelines a pod that fits only once they are gone. The judgement changes nothing: a reservation
   * is checked against the ledger, where the releasing pods stay charged until they are gone.
   */
  private Answer predicate(PredicateRequest request) {
    try {
      Verdict verdict =
          scheduler
              .filter(request.pod(), List.of(request.node()), request.releasing())
              .get(request.node());
      return new Answer(
          new PredicateResponse(
              verdict.fits() ? "" : verdict.reason(),
              verdict.fits() ? 0 : verdict.unresolvable() ? 3 : 2),
          !verdict.fits());
    } catch (SchedulingException e) {
      return new Answer(new PredicateResponse(e.getMessage(), 3), true);
    }
  }

  private Answer prioritize(PrioritizeRequest request) {
    try {
      return new Answer(
          new PrioritizeResponse(
              new LinkedHashMap<>(scheduler.scores(request.pod(), request.nodes())), ""),
          false);
    } catch (SchedulingException e) {
      return new Answer(new PrioritizeResponse(Map.of(), e.getMessage()), true);
    }
  }

  private Answer allocate(EventRequest request) throws BadRequest {
    PodManifest pod = request.pod();
    String node = request.node();
    if (node.isEmpty()) {
      throw new BadRequest("missing NodeName");
    }
    if (!leadership.isLeader()) {
      return error(leadership.notLeader());
    }
    try {
      PodManifest stored =
          requests.placeable(requests.stored(pod.namespace(), pod.name(), pod.uid()), node);
      if (request.pipelined()) {
        scheduler.pipeline(stored, node);
      } else {
        // Answered once decided: the writes follow, and a write that fails is undone and told
        // to the pod's owner (PodReserver), as Volcano's session has moved on by then.
        scheduler.reserve(stored, node);
      }
      return error("");
    } catch (SchedulingException e) {
      return error(e.getMessage());
    }
  }

  private Answer deallocate(EventRequest request) {
    PodManifest pod = request.pod();
    if (!leadership.isLeader()) {
      return error(leadership.notLeader());
    }
    // The pod's truth is the API server's, not the request's: Volcano calls deallocateFunc when a
    // binding failed, so a pod bound to a node keeps its vNPUs until it ends.
    Pod current = requests.current(pod);
    if (current != null
        && current.getMetadata().getUid().equals(pod.uid())
        && Fabric8Views.bound(current)) {
      if (request.releasing()) {
        // Statement.Evict: the session evicts it, so the place its preemptor holds is coming.
        scheduler.evicting(pod.uid());
        return error("");
      }
      return error(
          "pod "
              + pod.namespace()
              + "/"
              + pod.name()
              + " is bound to node "
              + current.getSpec().getNodeName()
              + ": its vNPUs are released when it ends, not by deallocateFunc");
    }
    scheduler.unreserve(pod.namespace(), pod.name(), pod.uid());
    return error("");
  }

  /** An answer carrying {@code message}; refused unless it is empty. */
  private static Answer error(String message) {
    return new Answer(new ErrorResponse(message), !message.isEmpty());
  }
}
