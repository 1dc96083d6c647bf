package org.vnpu.scheduler;

import java.util.Set;

/** What the extender says to a scheduler's preemption on one node (docs/colocation.md). */
public sealed interface Preemption {

  /** The preemptor asks for no vNPU: the extender has no say. */
  record Abstain() implements Preemption {}

  /** No eviction the extender allows makes room on the node's chips, and why. */
  record Refused(String reason) implements Preemption {}

  /**
   * The evictees that may go: the fewest offline vNPU pods that make room on a chip, and the pods
   * without vNPUs on the node, which are not the extender's to keep.
   */
  record Victims(Set<String> uids) implements Preemption {}
}
