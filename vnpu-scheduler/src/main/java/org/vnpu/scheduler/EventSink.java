package org.vnpu.scheduler;

import org.vnpu.core.request.PodManifest;

/**
 * What the scheduler tells a pod's owner about its decisions: Kubernetes Events on the pod ({@link
 * PodEvents}), or, in tests of the decisions, a list.
 */
interface EventSink {

  /** The pod's vNPUs were reserved: where they went. */
  void allocated(PodManifest pod, String message);

  /** No node fits the pod, and why. */
  void unschedulable(PodManifest pod, String message);

  /** The pod may preempt: which pods make room for it. */
  void preempting(PodManifest pod, String message);

  /** The rebalancer plans moves for the pod. */
  void rebalancing(PodManifest pod, String message);

  /** The rebalancer moved the pod. */
  void rebalanced(PodManifest pod, String message);

  /** The rebalancer found no plan for the pod, and why. */
  void rebalanceRefused(PodManifest pod, String message);
}
