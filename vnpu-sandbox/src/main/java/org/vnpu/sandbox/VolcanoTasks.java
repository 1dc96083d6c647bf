package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.vnpu.kube.NodeBook;
import org.vnpu.kube.PodRequests;

/**
 * Pods as Volcano's session sees them: its {@code TaskInfo} and {@code TaskStatus} ({@code
 * api/job_info.go}, {@code api/helpers.go}), which tasks its preempt action may take as victims and
 * in which order, and a node with the evicted tasks releasing.
 */
final class VolcanoTasks {

  /** Volcano's {@code TaskStatus} bits ({@code api/types.go}). */
  static final int PENDING = 1;

  static final int ALLOCATED = 1 << 1;
  static final int PIPELINED = 1 << 2;

  static final int BOUND = 1 << 4;
  static final int RUNNING = 1 << 5;
  static final int RELEASING = 1 << 6;
  static final int SUCCEEDED = 1 << 7;
  static final int FAILED = 1 << 8;
  static final int UNKNOWN = 1 << 9;
  static final Set<Integer> PREEMPTABLE_STATUSES = Set.of(BOUND, RUNNING);

  static final String PREEMPTABLE = "volcano.sh/preemptable";
  static final Set<String> CRITICAL_CLASSES =
      Set.of("system-cluster-critical", "system-node-critical");

  /**
   * {@code BuildVictimsPriorityQueue}: the lowest job priority first, then the reverse of the task
   * order (priority, then creation), so the newest first.
   */
  static final Comparator<Pod> EVICTION_ORDER =
      Comparator.comparingInt(SchedulingProtocol::priority)
          .thenComparing(
              (Pod pod) -> pod.getMetadata().getCreationTimestamp(),
              Comparator.nullsFirst(Comparator.<String>reverseOrder()));

  /** Any instant: a session's evicted pods only need to show as being deleted. */
  static final String RELEASING_SINCE = "1970-01-01T00:00:00Z";

  private VolcanoTasks() {}

  /**
   * The node's tasks the preempt action's filter passes ({@code preempt.go Execute}): {@code Bound}
   * or {@code Running} ({@code api.PreemptableStatus}), preemptable ({@code volcano.sh/preemptable}
   * annotation, else label, else true: {@code api/pod_info.go GetPodPreemptable}), another job than
   * the preemptor's, and not a pod with requests when the preemptor has none ({@code BestEffort}).
   * Every pod is its own job in the default queue.
   */
  static List<Pod> preemptees(Pod preemptor, NodeBook node) {
    boolean bestEffort = PodRequests.of(preemptor).isEmpty();
    return node.pods().stream()
        .filter(pod -> PREEMPTABLE_STATUSES.contains(status(pod)))
        .filter(VolcanoTasks::preemptable)
        .filter(pod -> !pod.getMetadata().getUid().equals(preemptor.getMetadata().getUid()))
        .filter(pod -> !bestEffort || PodRequests.of(pod).isEmpty())
        .toList();
  }

  static boolean preemptable(Pod pod) {
    String value =
        pod.getMetadata().getAnnotations() == null
            ? null
            : pod.getMetadata().getAnnotations().get(PREEMPTABLE);
    if (value == null && pod.getMetadata().getLabels() != null) {
      value = pod.getMetadata().getLabels().get(PREEMPTABLE);
    }
    return value == null || Boolean.parseBoolean(value);
  }

  /** The node with {@code evicted} releasing, as {@code Statement.Evict} leaves it in a session. */
  static NodeBook withEvicted(NodeBook node, List<Pod> evicted) {
    if (evicted.isEmpty()) {
      return node;
    }
    List<Pod> pods = new ArrayList<>();
    for (Pod pod : node.pods()) {
      pods.add(
          evicted.contains(pod)
              ? new PodBuilder(pod)
                  .editMetadata()
                  .withDeletionTimestamp(RELEASING_SINCE)
                  .endMetadata()
                  .build()
              : pod);
    }
    return node.withPods(pods);
  }

  /**
   * A pod as Volcano's {@code TaskInfo} carries it ({@code api/job_info.go NewTaskInfo}): its UID,
   * name, namespace, node, status ({@code api/helpers.go getTaskStatus}), priority and the pod.
   */
  static ObjectNode taskInfo(Pod pod) {
    ObjectNode task = ExtenderClient.JSON.createObjectNode();
    task.put("UID", pod.getMetadata().getUid());
    task.put("Name", pod.getMetadata().getName());
    task.put("Namespace", pod.getMetadata().getNamespace());
    task.put("NodeName", pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName());
    task.put("Status", status(pod));
    task.put("Priority", SchedulingProtocol.priority(pod));
    task.set("Pod", ExtenderClient.pod(pod));
    return task;
  }

  /** {@code api/helpers.go getTaskStatus}, as Volcano's {@code TaskStatus} bit. */
  static int status(Pod pod) {
    String phase = pod.getStatus() == null ? "Pending" : pod.getStatus().getPhase();
    boolean deleting = pod.getMetadata().getDeletionTimestamp() != null;
    return switch (phase == null ? "Pending" : phase) {
      case "Running" -> deleting ? RELEASING : RUNNING;
      case "Pending" ->
          deleting ? RELEASING : pod.getSpec().getNodeName() == null ? PENDING : BOUND;
      case "Succeeded" -> SUCCEEDED;
      case "Failed" -> FAILED;
      default -> UNKNOWN;
    };
  }

  static boolean isCritical(String priorityClass) {
    return priorityClass != null && CRITICAL_CLASSES.contains(priorityClass);
  }
}
