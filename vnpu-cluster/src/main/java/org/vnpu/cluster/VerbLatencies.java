package org.vnpu.cluster;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The extender's answer times by verb over an interval: the difference of two readings of its
 * histogram {@code vnpu_scheduler_request_duration_seconds} from {@code /metrics}, with quantiles
 * estimated as Prometheus's {@code histogram_quantile} does (linear within the bucket that holds
 * the rank). A quantile is only as fine as the buckets: 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250 ms and
 * 1 s.
 */
final class VerbLatencies {

  private static final Pattern BUCKET =
      Pattern.compile("(?m)^vnpu_scheduler_request_duration_seconds_bucket\\{([^}]*)} (\\S+)");
  private static final Pattern VERB = Pattern.compile("verb=\"([^\"]+)\"");
  private static final Pattern LE = Pattern.compile("le=\"([^\"]+)\"");

  /** Cumulative counts by verb, then by upper bound ({@code +Inf} as infinity). */
  private final Map<String, TreeMap<Double, Double>> buckets;

  private VerbLatencies(Map<String, TreeMap<Double, Double>> buckets) {
    this.buckets = buckets;
  }

  /** The histogram as a {@code /metrics} answer shows it. */
  static VerbLatencies read(String metrics) {
    Map<String, TreeMap<Double, Double>> buckets = new TreeMap<>();
    Matcher line = BUCKET.matcher(metrics);
    while (line.find()) {
      Matcher verb = VERB.matcher(line.group(1));
      Matcher le = LE.matcher(line.group(1));
      if (!verb.find() || !le.find()) {
        continue;
      }
      double bound =
          le.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le.group(1));
      buckets
          .computeIfAbsent(verb.group(1), v -> new TreeMap<>())
          .put(bound, Double.parseDouble(line.group(2)));
    }
    return new VerbLatencies(buckets);
  }

  /** What was observed after {@code earlier} and up to this reading. */
  VerbLatencies since(VerbLatencies earlier) {
    Map<String, TreeMap<Double, Double>> difference = new TreeMap<>();
    buckets.forEach(
        (verb, counts) -> {
          TreeMap<Double, Double> before = earlier.buckets.getOrDefault(verb, new TreeMap<>());
          TreeMap<Double, Double> delta = new TreeMap<>();
          counts.forEach(
              (bound, count) -> delta.put(bound, count - before.getOrDefault(bound, 0.0)));
          if (delta.lastEntry().getValue() > 0) {
            difference.put(verb, delta);
          }
        });
    return new VerbLatencies(difference);
  }

  /** Calls by verb. */
  Map<String, Long> calls() {
    Map<String, Long> calls = new TreeMap<>();
    buckets.forEach((verb, counts) -> calls.put(verb, Math.round(counts.lastEntry().getValue())));
    return calls;
  }

  /**
   * The {@code q} quantile of {@code verb}'s answer time in seconds; NaN when it had no call, and
   * the largest finite bound when the rank falls beyond it.
   */
  double quantile(String verb, double q) {
    TreeMap<Double, Double> counts = buckets.get(verb);
    if (counts == null) {
      return Double.NaN;
    }
    double rank = q * counts.lastEntry().getValue();
    double lower = 0;
    double below = 0;
    for (Map.Entry<Double, Double> bucket : counts.entrySet()) {
      if (bucket.getValue() >= rank) {
        if (bucket.getKey().isInfinite()) {
          return lower;
        }
        double inBucket = bucket.getValue() - below;
        return inBucket == 0
            ? bucket.getKey()
            : lower + (bucket.getKey() - lower) * (rank - below) / inBucket;
      }
      lower = bucket.getKey();
      below = bucket.getValue();
    }
    return lower;
  }
}
