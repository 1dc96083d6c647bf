package org.vnpu.cluster;

import java.util.Map;
import java.util.Set;

/**
 * What one row of the throughput benchmark measured.
 *
 * @param row the row
 * @param pods pods created
 * @param bound pods bound when the row ended
 * @param seconds from the first create to the last binding (or to the end, when some stayed
 *     unbound)
 * @param verbs the extender's calls in the row, by verb: count, p50 and p99 in milliseconds
 * @param extenderRequests the extender's API requests in the row, by {@code verb resource}
 * @param schedulerRequests the scheduler's API requests in the row, by {@code verb resource}
 * @param cpuSeconds CPU seconds each process used during the row
 * @param lockRefusals nodes the extender turned away for another pod's lock
 * @param chipsUsed chips holding at least one of the row's pods; for plain pods, the pods bound
 * @param chipsSequential the chips the same pods take placed one at a time by the scheduler's
 *     engine ({@code SequentialPlan}); null for plain pods
 * @param problem why the row is broken (pods left unbound, a failed write), or null
 */
record RowFigures(
    ThroughputRow row,
    int pods,
    int bound,
    double seconds,
    Map<String, Verb> verbs,
    Map<String, Integer> extenderRequests,
    Map<String, Integer> schedulerRequests,
    Map<String, Double> cpuSeconds,
    long lockRefusals,
    int chipsUsed,
    Integer chipsSequential,
    String problem) {

  /** API verbs that write. */
  private static final Set<String> WRITES = Set.of("create", "update", "patch", "delete");

  /**
   * One extender verb.
   *
   * @param calls answers in the row
   * @param p50 median answer time, ms
   * @param p99 99th percentile, ms
   */
  record Verb(long calls, double p50, double p99) {}

  double podsPerSecond() {
    return seconds <= 0 ? 0 : bound / seconds;
  }

  /**
   * The extender's writes per bound pod, its events apart: it records those from a queue of its
   * own, after its verbs answered (its Lease's renewals are counted in).
   */
  double extenderWritesPerPod() {
    return perPod(extenderRequests, true) - eventsPerPod();
  }

  /** The extender's events per bound pod. */
  double eventsPerPod() {
    return bound == 0 ? 0 : extenderRequests.getOrDefault("create events", 0) / (double) bound;
  }

  /** The extender's requests of every verb per bound pod. */
  double extenderRequestsPerPod() {
    return perPod(extenderRequests, false);
  }

  /** The scheduler's requests per bound pod. */
  double schedulerRequestsPerPod() {
    return perPod(schedulerRequests, false);
  }

  private double perPod(Map<String, Integer> requests, boolean writesOnly) {
    if (bound == 0) {
      return 0;
    }
    long count =
        requests.entrySet().stream()
            .filter(e -> !writesOnly || WRITES.contains(e.getKey().split(" ")[0]))
            .mapToLong(Map.Entry::getValue)
            .sum();
    return (double) count / bound;
  }

  boolean broken() {
    return problem != null;
  }
}
