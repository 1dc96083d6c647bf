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

  /** Whether any container asks for a vNPU; other pods are not vNPU's business. */
  public boolean requestsVnpus() {
    return !containers.isEmpty();
  }
}
