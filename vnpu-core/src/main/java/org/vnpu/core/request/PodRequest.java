package org.vnpu.core.request;

import java.util.List;

/**
 * What a pod asks for: pod-wide options and, per container that wants vNPUs, its request.
 *
 * @param namespace pod namespace
 * @param name pod name
 * @param uid pod UID
 * @param options pod-wide options
 * @param containers containers that request vNPUs, init containers first
 */
public record PodRequest(
    String namespace,
    String name,
    String uid,
    PodOptions options,
    List<ContainerRequest> containers) {

  public PodRequest {
    containers = List.copyOf(containers);
  }

  /** Chip compute it asks for, in percent of one chip: a whole card is 100 per chip. */
  public long computePercent() {
    long sum = 0;
    for (ContainerRequest container : containers) {
      sum += (long) container.count() * container.cores();
    }
    return sum;
  }

  /** Whether any container asks for a vNPU; other pods are not vNPU's business. */
  public boolean requestsVnpus() {
    return !containers.isEmpty();
  }
}
