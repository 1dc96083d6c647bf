package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.vnpu.core.engine.RejectKind;
import org.vnpu.core.engine.Rejection;
import org.vnpu.kube.NodeBook;

/** How the sandbox's scheduling loop places one pod through the vNPU scheduler's extender. */
interface SchedulingProtocol {

  /**
   * A binding the scheduler runs apart from its cycle, as both do: Volcano's cache binds in a
   * goroutine of its own ({@code pkg/scheduler/cache/cache.go BindTask}), kube-scheduler runs the
   * binding cycle in one ({@code pkg/scheduler/schedule_one.go ScheduleOne}).
   */
  interface Binding {
    /** Binds the pod; why it could not be bound, null when it was. */
    String bind() throws IOException, InterruptedException;
  }

  /**
   * What came of one attempt.
   *
   * @param node the node the pod is bound to, or is being bound to; null when it was not placed
   * @param reason why not; null when placed
   * @param nominating what becomes of the pod's {@code status.nominatedNodeName}, as
   *     kube-scheduler's {@code NominatingInfo} says: null leaves it, "" clears it, a node's name
   *     sets it (a preemption made room there)
   * @param binding the binding still to run, after which the pod is bound to {@code node}; null
   *     when the attempt bound it already or did not place it
   */
  record Attempt(String node, String reason, String nominating, Binding binding) {
    static Attempt bound(String node) {
      return new Attempt(node, null, null, null);
    }

    static Attempt binding(String node, Binding binding) {
      return new Attempt(node, null, null, binding);
    }

    static Attempt notBound(String reason) {
      return new Attempt(null, reason, null, null);
    }

    static Attempt notBound(String reason, String nominating) {
      return new Attempt(null, reason, nominating, null);
    }

    boolean isBound() {
      return node != null;
    }

    /** Not bound because another pod's allocation held a node: worth trying again at once. */
    boolean waitsForALock() {
      return reason != null && reason.contains(LOCKED);
    }
  }

  /** How the engine says a node is locked by another pod's allocation. */
  String LOCKED = Rejection.of(RejectKind.LOCKED).phrase();

  /**
   * What Volcano writes, reason Unschedulable, on a pod its session pipelined: placed on a node
   * once the pods releasing there are gone ({@code api/job_info.go TaskSchedulingReason}).
   */
  String PIPELINED = "once resource is released";

  /** Filters, scores, reserves and binds {@code pod} on one of {@code nodes}. */
  Attempt schedule(Pod pod, Collection<NodeBook> nodes) throws IOException, InterruptedException;

  /** "namespace/name", as logs name a pod. */
  static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  /** {@code corev1helpers.PodPriority}: {@code spec.priority}, 0 when unset. */
  static int priority(Pod pod) {
    Integer priority = pod.getSpec().getPriority();
    return priority == null ? 0 : priority;
  }

  /** "0/4 nodes fit: 3 split mode is soft; 1 not enough device memory", from each node's reason. */
  static String summary(int nodes, Map<String, String> reasons) {
    Map<String, Long> counted =
        new TreeMap<>(
            reasons.values().stream()
                .collect(Collectors.groupingBy(reason -> reason, Collectors.counting())));
    return "0/"
        + nodes
        + " nodes fit: "
        + counted.entrySet().stream()
            .map(entry -> entry.getValue() + " " + entry.getKey())
            .collect(Collectors.joining("; "));
  }
}
