package org.vnpu.sim.report;

import java.util.List;

/**
 * Mean, sample standard deviation and range of one figure over seeds.
 *
 * @param mean the mean
 * @param sd the sample standard deviation (0 for one value)
 * @param min the smallest value
 * @param max the largest value
 * @param n how many values
 */
public record Spread(double mean, double sd, double min, double max, int n) {

  public static Spread of(List<Double> values) {
    List<Double> present = values.stream().filter(v -> !v.isNaN()).toList();
    if (present.isEmpty()) {
      return new Spread(Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0);
    }
    double mean = present.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    double squares = present.stream().mapToDouble(v -> (v - mean) * (v - mean)).sum();
    double sd = present.size() < 2 ? 0 : Math.sqrt(squares / (present.size() - 1));
    return new Spread(
        mean,
        sd,
        present.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
        present.stream().mapToDouble(Double::doubleValue).max().orElseThrow(),
        present.size());
  }

  /** Whether {@code value} lies within the range of the values. */
  public boolean covers(double value) {
    return value >= min && value <= max;
  }

  @Override
  public String toString() {
    return String.format(java.util.Locale.ROOT, "%.2f ± %.2f", mean, sd);
  }
}
