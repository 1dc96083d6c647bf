package org.vnpu.sim.experiment;

import java.util.List;
import java.util.Optional;

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
    return at(arrivedPercent).map(s -> 100 - s.allocatedPercent()).orElse(Double.NaN);
  }

  /**
   * Pods moved per 100 arrivals up to the same sample, or over the whole run when the arrivals
   * never reach it.
   */
  public double migrationsPer100ArrivalsAt(int arrivedPercent) {
    Sample sample = at(arrivedPercent).orElse(last());
    return 100.0 * sample.migrations() / sample.arrivals();
  }

  /**
   * The last sample whose arrived request rounds to at most {@code arrivedPercent}, if it is
   * reached.
   */
  public Optional<Sample> at(int arrivedPercent) {
    Sample last = null;
    for (Sample sample : samples) {
      if (Math.round(sample.arrivedPercent()) > arrivedPercent) {
        return Optional.ofNullable(last);
      }
      last = sample;
    }
    return last != null && Math.round(last.arrivedPercent()) == arrivedPercent
        ? Optional.of(last)
        : Optional.empty();
  }

  /** The mean over the run of the fullest node's allocated AI Core, in % of its chips. */
  public double meanHottestNodePercent() {
    return samples.stream().mapToDouble(Sample::hottestNodePercent).average().orElse(0);
  }

  /** The mean over the run of the emptiest node's allocated AI Core, in % of its chips. */
  public double meanCoolestNodePercent() {
    return samples.stream().mapToDouble(Sample::coolestNodePercent).average().orElse(0);
  }

  public Sample last() {
    return samples.get(samples.size() - 1);
  }
}
