package org.vnpu.scheduler;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.vnpu.core.ledger.HostResources;

/**
 * Host CPU and memory each node can allocate, and what the pods bound or reserved there request, as
 * kube-scheduler counts them: the host capacity the ledger gives a node is what is left. Pods of
 * every kind count, not only vNPU pods. Not thread-safe: the scheduler serialises access.
 */
final class HostUsage {

  private record Charge(String node, HostResources request) {}

  private final Map<String, HostResources> allocatable = new HashMap<>();
  private final Map<String, Charge> charges = new HashMap<>();
  private final Map<String, HostResources> requested = new HashMap<>();

  /** The node's allocatable host; {@link HostResources#UNTRACKED} when it does not say. */
  void allocatable(String node, HostResources resources) {
    allocatable.put(node, resources);
  }

  void nodeRemoved(String node) {
    allocatable.remove(node);
  }

  /**
   * Charges the pod's request to {@code node}; the node it was charged to before, when that is
   * another one.
   */
  Optional<String> charge(String podUid, String node, HostResources request) {
    Optional<String> before = release(podUid).filter(previous -> !previous.equals(node));
    charges.put(podUid, new Charge(node, request));
    requested.merge(node, request, HostResources::plus);
    return before;
  }

  /** Takes back the pod's charge; the node it was charged to, if it was. */
  Optional<String> release(String podUid) {
    Charge charge = charges.remove(podUid);
    if (charge == null) {
      return Optional.empty();
    }
    requested.computeIfPresent(charge.node(), (node, sum) -> sum.minus(charge.request()));
    return Optional.of(charge.node());
  }

  /** What is left of the node's allocatable host for further pods, never below nothing. */
  HostResources left(String node) {
    HostResources capacity = allocatable.getOrDefault(node, HostResources.UNTRACKED);
    if (capacity == HostResources.UNTRACKED) {
      return capacity;
    }
    HostResources left = capacity.minus(requested.getOrDefault(node, HostResources.NONE));
    return new HostResources(Math.max(0, left.cpuMilli()), Math.max(0, left.memoryMiB()));
  }
}
