package org.vnpu.core.request;

import java.util.Map;
import java.util.function.ToLongFunction;
import org.vnpu.core.ledger.HostResources;

/**
 * The host CPU and memory a pod requests, counted as kube-scheduler's resource fit counts them: the
 * sum over its app containers, or the largest init container when that asks more, plus the pod's
 * {@code spec.overhead} (kube-scheduler {@code noderesources/fit.go computePodResourceRequest}
 * calls {@code component-helpers resource/helpers.go PodRequests} without {@code ExcludeOverhead},
 * which adds it; the sandbox's emulated schedulers count it as {@code PodRequests} does). A
 * container that requests nothing of a resource but limits it requests its limit, as the API server
 * defaults it.
 */
public final class HostRequests {

  private static final String CPU = "cpu";
  private static final String MEMORY = "memory";

  private HostRequests() {}

  /**
   * What {@code pod} requests of the host.
   *
   * @throws IllegalArgumentException naming the container and the value when a CPU or memory
   *     quantity cannot be read
   */
  public static HostResources of(PodManifest pod) {
    long cpu = 0;
    long memory = 0;
    try {
      for (ContainerSpec container : pod.containers()) {
        HostResources asked = of(container);
        cpu = Math.addExact(cpu, asked.cpuMilli());
        memory = Math.addExact(memory, asked.memoryMiB());
      }
      for (ContainerSpec init : pod.initContainers()) {
        HostResources asked = of(init);
        cpu = Math.max(cpu, asked.cpuMilli());
        memory = Math.max(memory, asked.memoryMiB());
      }
      return new HostResources(
          Math.addExact(cpu, amount(pod.overhead(), "overhead", CPU, Quantity::milliRoundedUp)),
          Math.addExact(
              memory, amount(pod.overhead(), "overhead", MEMORY, Quantity::mebibytesRoundedUp)));
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "host request of pod " + pod.name() + ": the sum of its requests is too large", e);
    }
  }

  private static HostResources of(ContainerSpec container) {
    return new HostResources(
        amount(container, CPU, Quantity::milliRoundedUp),
        amount(container, MEMORY, Quantity::mebibytesRoundedUp));
  }

  private static long amount(
      ContainerSpec container, String resource, ToLongFunction<Quantity> unit) {
    String request = container.requests().get(resource);
    Map<String, String> asked = request != null ? container.requests() : container.limits();
    return amount(asked, "container " + container.name(), resource, unit);
  }

  /** {@code resource} of {@code quantities}, 0 when absent; {@code whose} names them in errors. */
  private static long amount(
      Map<String, String> quantities,
      String whose,
      String resource,
      ToLongFunction<Quantity> unit) {
    String text = quantities.get(resource);
    if (text == null) {
      return 0;
    }
    String which = "host request of " + whose + ": " + resource + " ";
    try {
      return unit.applyAsLong(Quantity.parse(text));
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(which + "\"" + text + "\" is too large", e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(which + e.getMessage(), e);
    }
  }
}
