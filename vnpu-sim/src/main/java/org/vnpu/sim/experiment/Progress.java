package org.vnpu.sim.experiment;

/** Told how far the runs are, for progress output on long simulations. */
public interface Progress {

  Progress NONE = (policy, seed, done, total) -> {};

  /** {@code done} of {@code total} arrivals of the run of {@code policy} with {@code seed}. */
  void advanced(String policy, long seed, int done, int total);
}
