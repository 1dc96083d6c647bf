package org.vnpu.core.request;

import java.util.List;
import java.util.Map;

/**
 * The part of a pod the scheduler reads, independent of any Kubernetes client library.
 *
 * @param namespace pod namespace
 * @param name pod name
 * @param uid pod UID; empty for a manifest not yet created
 * @param annotations pod annotations
 * @param initContainers init containers, in order
 * @param containers app containers
 * @param priority the pod's {@code spec.priority}, resolved by the API server from its
 *     PriorityClass; null when absent (a manifest not yet created)
 * @param overhead the pod's {@code spec.overhead}, quantities by resource name, which the API
 *     server sets from the pod's RuntimeClass; empty when absent
 */
public record PodManifest(
    String namespace,
    String name,
    String uid,
    Map<String, String> annotations,
    List<ContainerSpec> initContainers,
    List<ContainerSpec> containers,
    Integer priority,
    Map<String, String> overhead) {

  public PodManifest {
    overhead = Map.copyOf(overhead);
    annotations = Map.copyOf(annotations);
    initContainers = List.copyOf(initContainers);
    containers = List.copyOf(containers);
  }

  /** A pod without {@code spec.overhead}. */
  public PodManifest(
      String namespace,
      String name,
      String uid,
      Map<String, String> annotations,
      List<ContainerSpec> initContainers,
      List<ContainerSpec> containers,
      Integer priority) {
    this(namespace, name, uid, annotations, initContainers, containers, priority, Map.of());
  }

  /** A pod without {@code spec.priority} or {@code spec.overhead}. */
  public PodManifest(
      String namespace,
      String name,
      String uid,
      Map<String, String> annotations,
      List<ContainerSpec> initContainers,
      List<ContainerSpec> containers) {
    this(namespace, name, uid, annotations, initContainers, containers, null, Map.of());
  }
}
