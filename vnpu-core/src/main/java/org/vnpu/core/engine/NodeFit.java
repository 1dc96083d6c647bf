package org.vnpu.core.engine;

/** Whether one node can take a pod. */
public sealed interface NodeFit {

  /**
   * The node can take the pod.
   *
   * @param plan the chips the pod would take there
   * @param score the node's score, 0..100
   */
  record Fits(NodePlan plan, double score) implements NodeFit {}

  /** The node cannot take the pod, and why. */
  record Rejected(Rejection rejection) implements NodeFit {}
}
