package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import org.vnpu.kube.NodeBook;
import org.vnpu.kube.PodRequests;

/**
 * The node scores Volcano and kube-scheduler compute from host resources, which they add to the
 * extender's score. Both schedulers use kube-scheduler's {@code noderesources} scorers over CPU and
 * memory, weight 1 each; Volcano's {@code binpack} plugin is its own.
 */
final class HostScores {

  /** kube-scheduler {@code framework.MaxNodeScore}. */
  static final long MAX_NODE_SCORE = 100;

  private static final List<String> HOST = List.of(PodRequests.CPU, PodRequests.MEMORY);

  private HostScores() {}

  /**
   * kube-scheduler {@code noderesources/least_allocated.go leastResourceScorer()}: per resource
   * {@code (allocatable - requested) * 100 / allocatable} over non-zero requests, 0 when the pod
   * does not fit or the node has none, averaged by weight in integer arithmetic.
   */
  static long leastAllocated(NodeBook node, Pod pod) {
    return weighted(
        node,
        pod,
        (requested, allocatable) ->
            requested.compareTo(allocatable) > 0
                ? 0
                : allocatable
                    .subtract(requested)
                    .multiply(BigDecimal.valueOf(MAX_NODE_SCORE))
                    .divide(allocatable, 0, RoundingMode.DOWN)
                    .longValue());
  }

  /**
   * kube-scheduler {@code noderesources/most_allocated.go mostResourceScorer()}: per resource
   * {@code requested * 100 / allocatable}, requested capped at allocatable.
   */
  static long mostAllocated(NodeBook node, Pod pod) {
    return weighted(
        node,
        pod,
        (requested, allocatable) ->
            requested
                .min(allocatable)
                .multiply(BigDecimal.valueOf(MAX_NODE_SCORE))
                .divide(allocatable, 0, RoundingMode.DOWN)
                .longValue());
  }

  /**
   * kube-scheduler {@code noderesources/balanced_allocation.go balancedResourceScorer()}: {@code (1
   * - std) * 100} of the requested fractions (capped at 1) of CPU and memory, over actual requests;
   * a resource the node has none of is left out.
   */
  static long balanced(NodeBook node, Pod pod) {
    Map<String, BigDecimal> asked = PodRequests.of(pod);
    double[] fractions = new double[HOST.size()];
    int count = 0;
    for (String name : HOST) {
      BigDecimal allocatable = node.allocatable().getOrDefault(name, BigDecimal.ZERO);
      if (allocatable.signum() == 0) {
        continue;
      }
      BigDecimal requested =
          node.requested()
              .getOrDefault(name, BigDecimal.ZERO)
              .add(asked.getOrDefault(name, BigDecimal.ZERO));
      fractions[count++] = Math.min(1, requested.doubleValue() / allocatable.doubleValue());
    }
    double std = count == 2 ? Math.abs(fractions[0] - fractions[1]) / 2 : 0;
    return (long) ((1 - std) * MAX_NODE_SCORE);
  }

  /**
   * Volcano {@code pkg/scheduler/plugins/binpack/binpack.go BinPackingScore()}: per configured
   * resource the pod requests, {@code (used + request) * weight / allocatable} (0 when it would not
   * fit), summed, divided by the weights summed, times 100 and {@code binpack.weight}.
   */
  static double volcanoBinpack(NodeBook node, Pod pod, VolcanoConfig config) {
    Map<String, BigDecimal> asked = PodRequests.of(pod);
    double score = 0;
    int weights = 0;
    for (Map.Entry<String, Integer> resource : config.binpackResources().entrySet()) {
      double request = asked.getOrDefault(resource.getKey(), BigDecimal.ZERO).doubleValue();
      if (request == 0) {
        continue;
      }
      double allocatable =
          node.allocatable().getOrDefault(resource.getKey(), BigDecimal.ZERO).doubleValue();
      double used = node.requested().getOrDefault(resource.getKey(), BigDecimal.ZERO).doubleValue();
      if (allocatable > 0 && used + request <= allocatable) {
        score += (used + request) * resource.getValue() / allocatable;
      }
      weights += resource.getValue();
    }
    return weights == 0 ? 0 : score / weights * MAX_NODE_SCORE * config.binpackWeight();
  }

  private interface Scorer {
    long score(BigDecimal requested, BigDecimal allocatable);
  }

  /**
   * kube-scheduler {@code noderesources/resource_allocation.go score()} over non-zero requests, CPU
   * and memory weighing 1 each; a resource the node has none of scores 0.
   */
  private static long weighted(NodeBook node, Pod pod, Scorer scorer) {
    Map<String, BigDecimal> asked = PodRequests.nonZero(pod);
    Map<String, BigDecimal> booked = node.nonZeroRequested();
    long sum = 0;
    for (String name : HOST) {
      BigDecimal allocatable = node.allocatable().getOrDefault(name, BigDecimal.ZERO);
      if (allocatable.signum() > 0) {
        BigDecimal requested =
            booked
                .getOrDefault(name, BigDecimal.ZERO)
                .add(asked.getOrDefault(name, BigDecimal.ZERO));
        sum += scorer.score(requested, allocatable);
      }
    }
    return sum / HOST.size();
  }
}
