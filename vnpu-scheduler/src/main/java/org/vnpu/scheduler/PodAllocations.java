package org.vnpu.scheduler;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.vnpu.api.payload.PodRef;
import org.vnpu.core.ledger.AllocationPlan;

/**
 * The allocations the {@link ClusterView} charges to pods: each with the pod whose annotation
 * carries it and the nonce it was signed with, by pod UID and by node, so that a node's change
 * reads the allocations on that node rather than every pod's. Not thread-safe: the {@link
 * SchedulerState}'s lock guards it.
 */
final class PodAllocations {

  /** A pod's allocation, and the pod and nonce its annotation carries it with. */
  private record Carried(AllocationPlan plan, PodRef pod, String nonce) {}

  private final Map<String, Carried> byUid = new HashMap<>();
  private final Map<String, Map<String, Carried>> byNode = new HashMap<>();

  /** Keeps {@code plan} as the allocation of {@code pod}, signed with {@code nonce}. */
  void put(PodRef pod, AllocationPlan plan, String nonce) {
    remove(pod.uid());
    Carried carried = new Carried(plan, pod, nonce);
    byUid.put(pod.uid(), carried);
    byNode.computeIfAbsent(plan.node(), node -> new HashMap<>()).put(pod.uid(), carried);
  }

  /** Drops the pod's allocation; the plan it had, or null. */
  AllocationPlan remove(String uid) {
    Carried carried = byUid.remove(uid);
    if (carried == null) {
      return null;
    }
    Map<String, Carried> onNode = byNode.get(carried.plan().node());
    onNode.remove(uid);
    if (onNode.isEmpty()) {
      byNode.remove(carried.plan().node());
    }
    return carried.plan();
  }

  boolean has(String uid) {
    return byUid.containsKey(uid);
  }

  /** The pod's allocation, or null. */
  AllocationPlan plan(String uid) {
    Carried carried = byUid.get(uid);
    return carried == null ? null : carried.plan();
  }

  /** The nonce the pod's allocation was signed with, or null. */
  String nonce(String uid) {
    Carried carried = byUid.get(uid);
    return carried == null ? null : carried.nonce();
  }

  /** The allocations of the pods on {@code node}. */
  List<AllocationPlan> on(String node) {
    return carriedOn(node).stream().map(Carried::plan).toList();
  }

  /** The nonces of the allocations of the pods on {@code node}. */
  Set<String> noncesOn(String node) {
    return carriedOn(node).stream().map(Carried::nonce).collect(Collectors.toSet());
  }

  /** The pod on {@code node} whose allocation was signed with {@code nonce}. */
  Optional<PodRef> carrier(String node, String nonce) {
    return carriedOn(node).stream()
        .filter(carried -> carried.nonce().equals(nonce))
        .map(Carried::pod)
        .findFirst();
  }

  private Collection<Carried> carriedOn(String node) {
    return byNode.getOrDefault(node, Map.of()).values();
  }
}
