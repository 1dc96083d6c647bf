package org.vnpu.core.policy;

import org.vnpu.core.ledger.ChipState;

/** How full chips are, 0..100: the mean of their compute and memory in use. */
final class Utilization {

  private Utilization() {}

  static double of(ChipState state) {
    double memory = state.memoryUsedMiB() * 100.0 / state.chip().memoryMiB();
    return (100.0 - state.freeComputePercent() + memory) / 2;
  }

  static double of(ChipState[] chips) {
    if (chips.length == 0) {
      return 0;
    }
    double sum = 0;
    for (ChipState chip : chips) {
      sum += of(chip);
    }
    return sum / chips.length;
  }
}
