package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One node's resources as the schedulers and the kubelet book them: its {@code status.allocatable},
 * and what the pods assigned to it request (terminated pods free theirs at once; pods being deleted
 * are still counted, as releasing).
 *
 * @param node the Node
 * @param allocatable the node's allocatable, in base units
 * @param requested what its pods request, releasing ones included, each pod counting as {@code
 *     pods: 1}
 * @param nonZeroRequested CPU and memory its pods request as the allocation scores count them
 * @param releasing what its pods being deleted request
 * @param pods its pods that have not ended, in the order given
 * @param nominated pods not yet assigned whose {@code status.nominatedNodeName} names the node (a
 *     preemption made room for them there), not counted in {@code requested}
 */
public record NodeBook(
    Node node,
    Map<String, BigDecimal> allocatable,
    Map<String, BigDecimal> requested,
    Map<String, BigDecimal> nonZeroRequested,
    Map<String, BigDecimal> releasing,
    List<Pod> pods,
    List<Pod> nominated) {

  /**
   * The books of {@code nodes}, by name, with {@code pods} assigned where their nodeName says, and
   * nominated where their {@code status.nominatedNodeName} says.
   */
  public static Map<String, NodeBook> of(Collection<Node> nodes, Collection<Pod> pods) {
    Map<String, NodeBook> books = new LinkedHashMap<>();
    for (Node node : nodes) {
      Map<String, BigDecimal> requested = new HashMap<>();
      Map<String, BigDecimal> nonZero = new HashMap<>();
      Map<String, BigDecimal> releasing = new HashMap<>();
      List<Pod> assigned = new ArrayList<>();
      List<Pod> nominated = new ArrayList<>();
      for (Pod pod : pods) {
        if (nominatedTo(pod, node.getMetadata().getName())) {
          nominated.add(pod);
        }
        if (!node.getMetadata().getName().equals(pod.getSpec().getNodeName())
            || PodPhases.finished(pod)) {
          continue;
        }
        assigned.add(pod);
        Map<String, BigDecimal> asked = new HashMap<>(PodRequests.of(pod));
        asked.merge(PodRequests.PODS, BigDecimal.ONE, BigDecimal::add);
        asked.forEach((name, amount) -> requested.merge(name, amount, BigDecimal::add));
        PodRequests.nonZero(pod)
            .forEach((name, amount) -> nonZero.merge(name, amount, BigDecimal::add));
        if (pod.getMetadata().getDeletionTimestamp() != null) {
          asked.forEach((name, amount) -> releasing.merge(name, amount, BigDecimal::add));
        }
      }
      Map<String, BigDecimal> allocatable =
          node.getStatus() == null || node.getStatus().getAllocatable() == null
              ? Map.of()
              : PodRequests.amounts(node.getStatus().getAllocatable());
      books.put(
          node.getMetadata().getName(),
          new NodeBook(
              node,
              allocatable,
              requested,
              nonZero,
              releasing,
              List.copyOf(assigned),
              List.copyOf(nominated)));
    }
    return books;
  }

  public String name() {
    return node.getMetadata().getName();
  }

  /**
   * This node booked anew with {@code pods} as what it runs and has nominated (as {@link #of} sorts
   * them): how a scheduler sees the node with pods evicted, added back or nominated.
   */
  public NodeBook withPods(Collection<Pod> pods) {
    return of(List.of(node), pods).get(name());
  }

  /**
   * Volcano {@code pkg/scheduler/actions/allocate/allocate.go predicate()}: {@code
   * task.InitResreq.LessEqualWithResourcesName(node.FutureIdle(), api.Zero)} ({@code
   * api/resource_info.go}), where the request counts the pod itself as {@code pods: 1} ({@code
   * api/pod_info.go aggregateAllContainerResourceRequests}), idle is allocatable less every
   * assigned pod ({@code api/node_info.go AddTask}) and future idle adds back the releasing ones
   * ({@code FutureIdle}). CPU and memory are always compared; a resource the node does not
   * advertise has 0 ({@code api.Zero}).
   *
   * @param future whether releasing pods' resources count as free ({@code FutureIdle}) or not
   *     ({@code Idle})
   * @return the resources short, in Volcano's order (cpu, memory, then the pod's scalars)
   */
  public List<String> volcanoShortfall(Map<String, BigDecimal> request, boolean future) {
    Map<String, BigDecimal> asked = new TreeMap<>(request);
    asked.merge(PodRequests.PODS, BigDecimal.ONE, BigDecimal::add);
    List<String> names = new ArrayList<>(List.of(PodRequests.CPU, PodRequests.MEMORY));
    asked.keySet().stream().filter(name -> !names.contains(name)).forEach(names::add);
    List<String> short_ = new ArrayList<>();
    for (String name : names) {
      BigDecimal idle = free(name);
      if (future) {
        idle = idle.add(releasing.getOrDefault(name, BigDecimal.ZERO));
      }
      if (asked.getOrDefault(name, BigDecimal.ZERO).compareTo(idle) > 0) {
        short_.add(name);
      }
    }
    return short_;
  }

  /**
   * kube-scheduler {@code pkg/scheduler/framework/plugins/noderesources/fit.go fitsRequest()}: the
   * pod count against {@code pods}, then CPU, memory and every scalar the pod requests against what
   * is free, skipping the extended resources in {@code ignored} (extenders' {@code
   * managedResources} with {@code ignoredByScheduler}). The kubelet's admission runs the same
   * function ({@code pkg/kubelet/lifecycle/predicate.go generalFilter}) with nothing ignored.
   *
   * @return each insufficient resource with kube-scheduler's reason
   */
  public Map<String, String> kubeShortfall(
      Map<String, BigDecimal> request, Collection<String> ignored) {
    Map<String, String> reasons = new LinkedHashMap<>();
    if (free(PodRequests.PODS).compareTo(BigDecimal.ONE) < 0) {
      reasons.put(PodRequests.PODS, "Too many pods");
    }
    List<String> names = new ArrayList<>(List.of(PodRequests.CPU, PodRequests.MEMORY));
    new TreeSet<>(request.keySet()).stream().filter(n -> !names.contains(n)).forEach(names::add);
    for (String name : names) {
      BigDecimal asked = request.getOrDefault(name, BigDecimal.ZERO);
      if (asked.signum() == 0 || (PodRequests.isExtended(name) && ignored.contains(name))) {
        continue;
      }
      if (asked.compareTo(free(name)) > 0) {
        reasons.put(name, "Insufficient " + name);
      }
    }
    return reasons;
  }

  /** What is left of {@code name} for another pod. */
  public BigDecimal free(String name) {
    return allocatable
        .getOrDefault(name, BigDecimal.ZERO)
        .subtract(requested.getOrDefault(name, BigDecimal.ZERO));
  }

  private static boolean nominatedTo(Pod pod, String node) {
    return pod.getSpec().getNodeName() == null
        && pod.getMetadata().getDeletionTimestamp() == null
        && pod.getStatus() != null
        && node.equals(pod.getStatus().getNominatedNodeName());
  }
}
