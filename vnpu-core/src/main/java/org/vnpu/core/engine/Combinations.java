package org.vnpu.core.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The subsets of one size of a list, in the order of their positions: cheapest first when sorted.
 */
final class Combinations {

  private Combinations() {}

  /**
   * Hands every subset of {@code size} elements of {@code items} to {@code visitor}, each charged
   * to {@code budget[0]}; stops when the budget goes below zero, so that a caller can tell an
   * exhausted search (budget negative) from a finished one.
   */
  static <T> void each(List<T> items, int size, int[] budget, Consumer<List<T>> visitor) {
    if (size > items.size()) {
      return;
    }
    int[] chosen = new int[size];
    for (int i = 0; i < size; i++) {
      chosen[i] = i;
    }
    while (--budget[0] >= 0) {
      List<T> set = new ArrayList<>(size);
      for (int index : chosen) {
        set.add(items.get(index));
      }
      visitor.accept(set);
      int i = size - 1;
      while (i >= 0 && chosen[i] == items.size() - size + i) {
        i--;
      }
      if (i < 0) {
        return;
      }
      chosen[i]++;
      for (int j = i + 1; j < size; j++) {
        chosen[j] = chosen[j - 1] + 1;
      }
    }
  }
}
