package org.vnpu.sim.experiment;

import org.vnpu.core.engine.Watermarks;

/**
 * Rebalancing in simulated runs (docs/rebalancing.md): when an arriving pod fits nowhere, running
 * pods may move so that it fits; in workloads with departures, offline pods also move off nodes
 * that run hot. Every pod the workload runs counts as movable: traces say nothing of owners.
 *
 * @param budgetPer100 moves allowed per 100 arrivals, accrued as pods arrive
 * @param marks when a node runs hot and which nodes may take its offline pods
 */
public record Rebalancing(int budgetPer100, Watermarks marks) {

  /** Moves one plan may make: what a pending pod may cost the pods already running. */
  public static final int MOVES_PER_PLAN = 3;

  public Rebalancing {
    if (budgetPer100 < 1) {
      throw new IllegalArgumentException("the migration budget must be at least 1 per 100");
    }
  }

  /** The name of a policy's runs with rebalancing. */
  public static String label(String policy) {
    return policy + "+rebalance";
  }
}
