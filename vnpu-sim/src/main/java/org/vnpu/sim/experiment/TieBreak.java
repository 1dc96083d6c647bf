package org.vnpu.sim.experiment;

/**
 * How a paper baseline chooses among nodes with the same whole-number score. kube-scheduler picks
 * uniformly at random; the paper's published FGD and BestFit figures are reproduced only when the
 * first node in list order wins (docs/benchmarks.md), so both are offered.
 */
public enum TieBreak {
  /** The first node in name order, the order the trace lists them. */
  FIRST,
  /** A uniformly random node among the best. */
  RANDOM
}
