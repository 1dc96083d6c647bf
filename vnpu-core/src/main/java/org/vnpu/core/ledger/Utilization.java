package org.vnpu.core.ledger;

import java.util.Arrays;
import java.util.List;

/** How full chips are, 0..100: the mean of their compute and memory in use. */
public final class Utilization {

  private Utilization() {}

  public static double of(ChipState state) {
    double memory = state.memoryUsedMiB() * 100.0 / state.chip().memoryMiB();
    return (100.0 - state.freeComputePercent() + memory) / 2;
  }

  /** The mean over {@code chips}; 0 for none. */
  public static double of(ChipState[] chips) {
    return of(Arrays.asList(chips));
  }

  /** The mean over {@code chips}; 0 for none. */
  public static double of(List<ChipState> chips) {
    if (chips.isEmpty()) {
      return 0;
    }
    double sum = 0;
    for (int i = 0; i < chips.size(); i++) {
      sum += of(chips.get(i));
    }
    return sum / chips.size();
  }
}
