package org.vnpu.sim.experiment;

import java.util.List;

/**
 * One policy over one seed's arrivals.
 *
 * @param policy the contender's name
 * @param seed the seed of the arrivals
 * @param samples one per arrival
 * @param millis wall time of the run
 */
public record RunResult(String policy, long seed, List<Sample> samples, long millis) {

  public RunResult {
    samples = List.copyOf(samples);
  }

  /**
   * Unallocated compute, in % of capacity, after the last arrival whose arrived request rounds to
   * at most {@code arrivedPercent} (with the paper's 1 % bins: the end of that bin); NaN when the
   * arrivals never reach it.
   */
  public double unallocatedAt(int arrivedPercent) {
    Sample last = null;
    for (Sample sample : samples) {
      if (Math.round(sample.arrivedPercent()) > arrivedPercent) {
        return last == null ? Double.NaN : 100 - last.allocatedPercent();
      }
      last = sample;
    }
    return last != null && Math.round(last.arrivedPercent()) == arrivedPercent
        ? 100 - last.allocatedPercent()
        : Double.NaN;
  }

  public Sample last() {
    return samples.get(samples.size() - 1);
  }
}
