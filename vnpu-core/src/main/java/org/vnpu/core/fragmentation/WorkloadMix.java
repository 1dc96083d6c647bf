package org.vnpu.core.fragmentation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shapes the cluster expects to see, each with its probability (summing to 1).
 *
 * @param shapes shapes with their probabilities
 */
public record WorkloadMix(List<Weighted> shapes) {

  /** A shape and its probability. */
  public record Weighted(WorkloadShape shape, double probability) {}

  /** A mix that expects nothing: every node's fragmentation is zero. */
  public static final WorkloadMix EMPTY = new WorkloadMix(List.of());

  public WorkloadMix {
    shapes = List.copyOf(shapes);
  }

  /**
   * Whether {@code other} expects the same shapes as this mix, each with a probability within
   * {@code drift} of this mix's: measures built on either weigh placements alike.
   */
  public boolean near(WorkloadMix other, double drift) {
    if (other.shapes.size() != shapes.size()) {
      return false;
    }
    Map<WorkloadShape, Double> mine = new HashMap<>();
    shapes.forEach(weighted -> mine.put(weighted.shape(), weighted.probability()));
    for (Weighted weighted : other.shapes) {
      Double probability = mine.get(weighted.shape());
      if (probability == null || Math.abs(probability - weighted.probability()) > drift) {
        return false;
      }
    }
    return true;
  }

  /**
   * The popular shapes of {@code observed}, as the FGD paper selects them: count each shape, take
   * the most frequent {@code step} at a time until they cover {@code coverage} of all pods, and
   * renormalise their frequencies.
   */
  public static WorkloadMix typical(List<WorkloadShape> observed, double coverage, int step) {
    Map<WorkloadShape, Integer> counts = new LinkedHashMap<>();
    observed.forEach(shape -> counts.merge(shape, 1, Integer::sum));
    return typical(counts, coverage, step);
  }

  /**
   * The popular shapes of pods already counted, {@code counts} holding how many pods of each shape
   * were seen ({@link #typical(List, double, int)}); shapes seen as often keep the map's order.
   */
  public static WorkloadMix typical(Map<WorkloadShape, Integer> counts, double coverage, int step) {
    long observed = counts.values().stream().mapToLong(Integer::longValue).sum();
    List<Map.Entry<WorkloadShape, Integer>> popular = new ArrayList<>(counts.entrySet());
    popular.sort(Map.Entry.<WorkloadShape, Integer>comparingByValue(Comparator.reverseOrder()));
    int kept = 0;
    long covered = 0;
    while (covered < coverage * observed && kept < popular.size()) {
      int end = Math.min(kept + step, popular.size());
      for (; kept < end; kept++) {
        covered += popular.get(kept).getValue();
      }
    }
    List<Weighted> shapes = new ArrayList<>();
    for (Map.Entry<WorkloadShape, Integer> entry : popular.subList(0, kept)) {
      shapes.add(new Weighted(entry.getKey(), entry.getValue() / (double) covered));
    }
    return new WorkloadMix(shapes);
  }
}
