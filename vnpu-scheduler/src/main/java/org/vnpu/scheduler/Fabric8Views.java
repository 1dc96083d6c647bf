package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.request.ContainerSpec;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.Quantity;
import org.vnpu.kube.PodPhases;

/** The engine's views of fabric8 objects: a pod's manifest, a node's allocatable host. */
public final class Fabric8Views {

  private static final Logger LOG = LoggerFactory.getLogger(Fabric8Views.class);

  private Fabric8Views() {}

  /** What the engine reads of {@code pod}, as {@code PodManifests} reads it from JSON. */
  public static PodManifest manifest(Pod pod) {
    return new PodManifest(
        pod.getMetadata().getNamespace() == null ? "default" : pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        pod.getMetadata().getUid() == null ? "" : pod.getMetadata().getUid(),
        pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations(),
        containers(pod.getSpec() == null ? null : pod.getSpec().getInitContainers()),
        containers(pod.getSpec() == null ? null : pod.getSpec().getContainers()),
        pod.getSpec() == null ? null : pod.getSpec().getPriority(),
        texts(pod.getSpec() == null ? null : pod.getSpec().getOverhead()));
  }

  /** Whether the pod is bound to a node ({@code spec.nodeName}). */
  static boolean bound(Pod pod) {
    return pod.getSpec() != null && pod.getSpec().getNodeName() != null;
  }

  /** The pod's controlling owner reference (a ReplicaSet, a Job, ...), if it has one. */
  static Optional<OwnerReference> controller(Pod pod) {
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    return owners == null
        ? Optional.empty()
        : owners.stream().filter(o -> Boolean.TRUE.equals(o.getController())).findFirst();
  }

  /** The UID of the pod's controlling owner; null without one. */
  static String owner(Pod pod) {
    return controller(pod).map(OwnerReference::getUid).orElse(null);
  }

  /**
   * The CPU and memory the node can allocate to pods ({@code status.allocatable}); untracked when
   * the node does not say.
   */
  static HostResources allocatable(Node node) {
    Map<String, io.fabric8.kubernetes.api.model.Quantity> allocatable =
        node.getStatus() == null ? null : node.getStatus().getAllocatable();
    if (allocatable == null
        || !allocatable.containsKey("cpu")
        || !allocatable.containsKey("memory")) {
      return HostResources.UNTRACKED;
    }
    return new HostResources(
        Quantity.parse(allocatable.get("cpu").toString()).milliRoundedUp(),
        Quantity.parse(allocatable.get("memory").toString()).mebibytesRoundedUp());
  }

  private static List<ContainerSpec> containers(List<Container> containers) {
    if (containers == null) {
      return List.of();
    }
    return containers.stream()
        .map(
            c ->
                new ContainerSpec(
                    c.getName(),
                    quantities(c.getResources(), true),
                    quantities(c.getResources(), false)))
        .toList();
  }

  private static Map<String, String> quantities(ResourceRequirements resources, boolean limits) {
    return texts(
        resources == null ? null : limits ? resources.getLimits() : resources.getRequests());
  }

  private static Map<String, String> texts(
      Map<String, io.fabric8.kubernetes.api.model.Quantity> quantities) {
    Map<String, String> texts = new LinkedHashMap<>();
    if (quantities != null) {
      quantities.forEach((name, quantity) -> texts.put(name, quantity.toString()));
    }
    return texts;
  }

  /** The node's allocatable host; untracked when the node does not say or says it unreadably. */
  static HostResources allocatableOrUntracked(Node node) {
    try {
      return allocatable(node);
    } catch (IllegalArgumentException e) {
      LOG.warn(
          "node {}: allocatable host not readable ({}); its host resources are not followed",
          node.getMetadata().getName(),
          e.getMessage());
      return HostResources.UNTRACKED;
    }
  }

  /**
   * The node as the scheduler's state reads it. Only a node that registered vNPUs has its
   * allocatable host read (and an unreadable one logged); the state passes other nodes over.
   */
  static NodeSeen seen(Node node) {
    Map<String, String> annotations = node.getMetadata().getAnnotations();
    boolean registered =
        annotations != null && annotations.containsKey(AnnotationKeys.NODE_REGISTER);
    return new NodeSeen(
        node.getMetadata().getName(),
        annotations == null ? Map.of() : annotations,
        registered ? allocatableOrUntracked(node) : HostResources.UNTRACKED);
  }

  /** The pod as the scheduler's state reads it. */
  static PodSeen seen(Pod pod) {
    return new PodSeen(
        manifest(pod),
        pod.getSpec() == null ? null : pod.getSpec().getNodeName(),
        PodPhases.finished(pod),
        started(pod),
        owner(pod));
  }

  /** When the pod started, as its status says; empty before it has or when that cannot be read. */
  static Optional<Instant> started(Pod pod) {
    String text = pod.getStatus() == null ? null : pod.getStatus().getStartTime();
    try {
      return Optional.ofNullable(text).map(Instant::parse);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
