package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * What the rebalancer reads and does in the cluster: every pod, and an eviction. {@link
 * KubeEvictions} is the API server's (the Eviction API, so that PodDisruptionBudgets apply).
 */
interface EvictionPort {

  /** Every pod of every namespace, as the cluster has them now. */
  List<Pod> pods();

  /**
   * Evicts the pod; false when a PodDisruptionBudget allows no disruption now.
   *
   * @throws RuntimeException when the eviction could not be asked for
   */
  boolean evict(String namespace, String name);
}
