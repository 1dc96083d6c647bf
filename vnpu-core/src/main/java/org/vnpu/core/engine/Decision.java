package org.vnpu.core.engine;

import java.util.Collections;
import java.util.Map;
import org.vnpu.core.ledger.AllocationPlan;

/** The engine's answer for one pod over a snapshot. */
public sealed interface Decision {

  /**
   * The pod goes to a node.
   *
   * @param plan where each vNPU goes
   * @param score the chosen node's score, 0..100
   */
  record Placed(AllocationPlan plan, double score) implements Decision {}

  /**
   * No node can take the pod.
   *
   * @param nodes how many nodes were considered
   * @param rejections the reason per node, in node order
   */
  record Unschedulable(int nodes, Map<String, Rejection> rejections) implements Decision {
    public Unschedulable {
      rejections = Collections.unmodifiableMap(rejections);
    }

    /** One sentence over all nodes, e.g. {@code 0/3 nodes fit: 3 split mode is hard}. */
    public String reason() {
      return RejectionSummary.of(nodes, rejections);
    }
  }
}
