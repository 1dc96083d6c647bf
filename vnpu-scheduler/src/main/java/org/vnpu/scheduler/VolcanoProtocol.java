package org.vnpu.scheduler;

import static org.vnpu.scheduler.ExtenderRequests.text;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.core.request.PodManifest;
import org.vnpu.scheduler.ExtenderVerb.Answer;
import org.vnpu.scheduler.ExtenderVerb.BadRequest;

/**
 * Volcano's {@code extender} plugin protocol ({@code pkg/scheduler/plugins/extender/argument.go}):
 * {@code predicate} (message under {@code status}, code 2 or 3), {@code prioritize} (0..100),
 * {@code allocateFunc}, {@code deallocateFunc}, {@code onSessionOpen}, {@code onSessionClose}.
 */
final class VolcanoProtocol {

  /** {@code PredicateRequest}: the task's pod and one node's name. */
  record PredicateRequest(PodManifest pod, String node) {
    static PredicateRequest read(JsonNode request) throws BadRequest {
      return new PredicateRequest(
          ExtenderRequests.pod(request.path("task").path("Pod"), "task.Pod"),
          text(request.path("node"), "Name"));
    }
  }

  /** {@code PrioritizeRequest}: the task's pod and the names of the candidate nodes. */
  record PrioritizeRequest(PodManifest pod, List<String> nodes) {
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
   * The {@code framework.Event} of {@code allocateFunc} and {@code deallocateFunc}: the task's pod
   * and the node it was allocated to (empty when deallocated before one was).
   */
  record EventRequest(PodManifest pod, String node) {
    static EventRequest read(JsonNode request) throws BadRequest {
      return new EventRequest(
          ExtenderRequests.pod(request.path("task").path("Pod"), "task.Pod"),
          request.path("task").path("NodeName").asText());
    }
  }

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
            ExtenderVerb.ONE_NODE, request -> predicate(PredicateRequest.read(request))),
        "/volcano/prioritize",
        new ExtenderVerb(
            ExtenderVerb.NODE_LISTS, request -> prioritize(PrioritizeRequest.read(request))),
        "/volcano/allocateFunc",
        new ExtenderVerb(ExtenderVerb.ONE_NODE, request -> allocate(EventRequest.read(request))),
        "/volcano/deallocateFunc",
        new ExtenderVerb(ExtenderVerb.ONE_NODE, request -> deallocate(EventRequest.read(request))),
        "/volcano/onSessionOpen",
        session,
        "/volcano/onSessionClose",
        session);
  }

  private Answer predicate(PredicateRequest request) {
    try {
      Scheduler.Verdict verdict =
          scheduler.filter(request.pod(), List.of(request.node())).get(request.node());
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
      scheduler.reserve(
          requests.placeable(requests.stored(pod.namespace(), pod.name(), pod.uid()), node), node);
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
        && current.getSpec() != null
        && current.getSpec().getNodeName() != null) {
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
