package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rebalancer's {@link EvictionPort} as a list of pods: an eviction deletes the pod, as the API
 * server does once the Eviction API allows it, unless a disruption budget is set to refuse.
 */
final class InMemoryEvictions implements EvictionPort {

  private final Map<String, Pod> pods = new LinkedHashMap<>();
  private final List<String> evicted = new ArrayList<>();
  private boolean budgetRefuses;

  void add(Pod pod) {
    pods.put(key(pod.getMetadata().getNamespace(), pod.getMetadata().getName()), pod);
  }

  /** Every eviction is refused from now on, as by a PodDisruptionBudget that allows none. */
  void budgetRefuses() {
    budgetRefuses = true;
  }

  /** The pods evicted, as {@code namespace/name}, in order. */
  List<String> evicted() {
    return List.copyOf(evicted);
  }

  @Override
  public List<Pod> pods() {
    return List.copyOf(pods.values());
  }

  @Override
  public boolean evict(String namespace, String name) {
    if (budgetRefuses) {
      return false;
    }
    pods.remove(key(namespace, name));
    evicted.add(key(namespace, name));
    return true;
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }
}
