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
   * Unallocated compute, in % of capacity, when the arrived request first reaches {@code
   * arrivedPercent} (the last arrival of that rounded bin, as the paper's analysis bins); NaN when
   * the workload never gets there.
   */
  public double unallocatedAt(int arrivedPercent) {
    Sample last = null;
    for (Sample sample : samples) {
      long bin = Math.round(sample.arrivedPercent());
      if (bin == arrivedPercent) {
        last = sample;
      } else if (bin > arrivedPercent) {
        break;
      }
    }
    return last == null ? Double.NaN : 100 - last.allocatedPercent();
  }

  public Sample last() {
    return samples.get(samples.size() - 1);
  }
}
