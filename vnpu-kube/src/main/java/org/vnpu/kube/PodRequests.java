package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What a pod requests of a node, in base units (cores, bytes, devices), as kube-scheduler, Volcano
 * and the kubelet count it.
 */
public final class PodRequests {

  public static final String CPU = "cpu";
  public static final String MEMORY = "memory";
  public static final String PODS = "pods";

  private static final BigDecimal DEFAULT_CPU = new BigDecimal("0.1");
  private static final BigDecimal DEFAULT_MEMORY = BigDecimal.valueOf(200L * 1024 * 1024);

  private PodRequests() {}

  /**
   * Kubernetes {@code pkg/api/v1/resource/helpers.go PodRequests()} (used by kube-scheduler's
   * {@code noderesources/fit.go computePodResourceRequest} and the kubelet's admission) and Volcano
   * {@code pkg/scheduler/api/pod_info.go aggregateAllContainerResourceRequests()}: the sum over the
   * app containers, raised per resource to the largest init container, plus {@code spec.overhead}.
   */
  public static Map<String, BigDecimal> of(Pod pod) {
    Map<String, BigDecimal> sum = aggregate(pod, PodRequests::requests);
    if (pod.getSpec().getOverhead() != null) {
      amounts(pod.getSpec().getOverhead())
          .forEach((name, amount) -> sum.merge(name, amount, BigDecimal::add));
    }
    return sum;
  }

  /**
   * kube-scheduler {@code pkg/scheduler/util/pod_resources.go GetNonzeroRequests()}, as the
   * allocation scores count a pod: CPU and memory per container, 100m and 200 MiB where a container
   * requests none, summed over the app containers and raised to the largest init container.
   */
  public static Map<String, BigDecimal> nonZero(Pod pod) {
    return aggregate(pod, PodRequests::nonZero);
  }

  /** {@code perContainer} summed over the app containers, raised to the largest init container. */
  private static Map<String, BigDecimal> aggregate(
      Pod pod, Function<Container, Map<String, BigDecimal>> perContainer) {
    Map<String, BigDecimal> sum = new TreeMap<>();
    for (Container container : pod.getSpec().getContainers()) {
      perContainer
          .apply(container)
          .forEach((name, amount) -> sum.merge(name, amount, BigDecimal::add));
    }
    for (Container init : pod.getSpec().getInitContainers()) {
      perContainer.apply(init).forEach((name, amount) -> sum.merge(name, amount, BigDecimal::max));
    }
    return sum;
  }

  private static Map<String, BigDecimal> nonZero(Container container) {
    Map<String, BigDecimal> asked = requests(container);
    return Map.of(
        CPU,
        positiveOr(asked.get(CPU), DEFAULT_CPU),
        MEMORY,
        positiveOr(asked.get(MEMORY), DEFAULT_MEMORY));
  }

  private static BigDecimal positiveOr(BigDecimal amount, BigDecimal fallback) {
    return amount == null || amount.signum() == 0 ? fallback : amount;
  }

  /**
   * The API server's defaulting, {@code pkg/apis/core/v1/defaults.go SetDefaults_Pod()}: a
   * container that limits a resource without requesting it requests its limit.
   */
  public static void defaultRequestsFromLimits(Pod pod) {
    List<Container> containers = new ArrayList<>(pod.getSpec().getContainers());
    containers.addAll(pod.getSpec().getInitContainers());
    for (Container container : containers) {
      if (container.getResources() == null || container.getResources().getLimits() == null) {
        continue;
      }
      Map<String, Quantity> requests =
          container.getResources().getRequests() == null
              ? new HashMap<>()
              : new HashMap<>(container.getResources().getRequests());
      container.getResources().getLimits().forEach(requests::putIfAbsent);
      container.getResources().setRequests(requests);
    }
  }

  /** Whether {@code name} is an extended resource: any name outside {@code kubernetes.io}. */
  public static boolean isExtended(String name) {
    return name.contains("/") && !name.contains("kubernetes.io/");
  }

  private static Map<String, BigDecimal> requests(Container container) {
    return container.getResources() == null || container.getResources().getRequests() == null
        ? Map.of()
        : amounts(container.getResources().getRequests());
  }

  public static Map<String, BigDecimal> amounts(Map<String, Quantity> quantities) {
    Map<String, BigDecimal> amounts = new TreeMap<>();
    quantities.forEach((name, quantity) -> amounts.put(name, quantity.getNumericalAmount()));
    return amounts;
  }
}
