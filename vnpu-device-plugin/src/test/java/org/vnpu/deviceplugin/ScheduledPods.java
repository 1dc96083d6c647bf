package org.vnpu.deviceplugin;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.BindPhase;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.PendingContainers;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.KeySet;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.kube.AnnotationPatches;
import org.vnpu.kube.NodeLocks;

/**
 * Writes what the vNPU scheduler writes when it binds a pod: the signed allocation, the pending
 * containers, bind phase {@code allocating}, {@code spec.nodeName}, and the node lock.
 */
public final class ScheduledPods {

  /** The scheduler's key in these tests; {@link #VERIFYING} is what nodes verify with. */
  public static final SigningKey KEY = SigningKey.generate();

  public static final KeySet VERIFYING = KeySet.of(List.of(KEY.verifying()));
  public static final String NAMESPACE = "serving";

  public final PayloadCodec codec = new PayloadCodec();
  public final AllocationSigner signer = new AllocationSigner(KEY, codec);
  private final KubernetesClient client;
  private final String node;
  private final Map<String, List<Integer>> counts = new HashMap<>();
  private final Map<String, String> shapes = new HashMap<>();

  public ScheduledPods(KubernetesClient client, String node) {
    this.client = client;
    this.node = node;
  }

  public void createNode(Map<String, String> labels) {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(node)
                .withLabels(labels)
                .endMetadata()
                .build())
        .create();
  }

  public static VnpuAssignment soft(int chip, String dieId, long memoryMiB, int cores) {
    return new VnpuAssignment(
        chip, dieId, "910B3", memoryMiB, cores, SplitMode.SOFT, false, AiCorePolicy.ELASTIC, null);
  }

  public static VnpuAssignment hard(int chip, String dieId, String template) {
    return new VnpuAssignment(
        chip, dieId, "910B3", 16384, 25, SplitMode.HARD, false, null, template);
  }

  public static VnpuAssignment whole(int chip, String dieId) {
    return new VnpuAssignment(chip, dieId, "910B3", 65536, 100, SplitMode.SOFT, true, null, null);
  }

  /** Creates the pod bound to this node and records the scheduler's decision for it. */
  public Pod bind(String name, List<ContainerAllocation> containers) {
    return bind(name, node, containers, signer);
  }

  /** As {@link #bind(String, List)}, bound to {@code boundTo} and signed by {@code by}. */
  public Pod bind(
      String name, String boundTo, List<ContainerAllocation> containers, AllocationSigner by) {
    Pod pod = create(name, boundTo, containers);
    annotate(pod, containers, by);
    lock(pod.getMetadata().getUid(), name, Instant.now().plus(Duration.ofMinutes(5)));
    return client.pods().inNamespace(NAMESPACE).withName(name).get();
  }

  /** Creates the pod bound to {@code boundTo} (null: unbound), without its reservation yet. */
  public Pod create(String name, String boundTo, List<ContainerAllocation> containers) {
    PodBuilder builder =
        new PodBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE).endMetadata();
    PodBuilder.SpecNested<PodBuilder> spec = builder.withNewSpec().withNodeName(boundTo);
    for (ContainerAllocation container : containers) {
      ContainerBuilder c = new ContainerBuilder().withName(container.name()).withImage("model:1");
      if (container.init()) {
        spec.addToInitContainers(c.build());
      } else {
        spec.addToContainers(c.build());
      }
    }
    counts.put(name, containers.stream().map(c -> c.vnpus().size()).distinct().sorted().toList());
    return client.pods().resource(spec.endSpec().build()).create();
  }

  /** Writes the scheduler's allocation of {@code containers}, signed by {@code by}, on the pod. */
  public void annotate(Pod pod, List<ContainerAllocation> containers, AllocationSigner by) {
    String name = pod.getMetadata().getName();
    PodAllocation allocation = new PodAllocation(pod.getMetadata().getUid(), node, containers);
    new AnnotationPatches(client)
        .pod(
            NAMESPACE,
            name,
            Map.of(
                AnnotationKeys.ALLOCATION,
                codec.encodeAllocation(by.sign(allocation, nonce(name))),
                AnnotationKeys.DEVICES_TO_ALLOCATE,
                codec.encodePending(
                    new PendingContainers(
                        containers.stream().map(ContainerAllocation::name).toList())),
                AnnotationKeys.BIND_PHASE,
                BindPhase.ALLOCATING.wireName()));
  }

  /**
   * As {@link #bind(String, List)}, but adds the pod's entry to the node's locks the way the
   * scheduler does, next to the entries there.
   *
   * @throws NodeLocks.RefusedException when an entry there may not share the node with it
   */
  public Pod bindAlongside(String name, List<ContainerAllocation> containers)
      throws NodeLocks.RefusedException {
    return bindAlongside(name, "shape-" + name, containers);
  }

  /** As {@link #bindAlongside(String, List)}, with the request digest {@code shape}. */
  public Pod bindAlongside(String name, String shape, List<ContainerAllocation> containers)
      throws NodeLocks.RefusedException {
    return reserveAlongside(name, node, shape, containers);
  }

  /**
   * As {@link #bindAlongside(String, String, List)}, but the pod is bound to {@code boundTo}; null
   * leaves it unbound, as it is between the scheduler's reservation and its binding.
   */
  public Pod reserveAlongside(
      String name, String boundTo, String shape, List<ContainerAllocation> containers)
      throws NodeLocks.RefusedException {
    shapes.put(name, shape);
    NodeLockSet before = locks();
    Pod pod = bind(name, boundTo, containers, signer);
    NodeLock mine = locks().of(pod.getMetadata().getUid()).orElseThrow();
    writeLocks(before);
    new NodeLocks(client, codec).take(node, mine, Instant.now());
    return pod;
  }

  /** The node's locks now. */
  public NodeLockSet locks() {
    return codec.locksOf(lockAnnotations());
  }

  /** The nonce of the reservation {@link #bind} records for pod {@code name}. */
  public static String nonce(String name) {
    return name + "-reservation";
  }

  /**
   * Locks the node for the pod alone, for the reservation {@link #bind} signed its allocation for.
   */
  public void lock(String uid, String podName, Instant expires) {
    lock(uid, podName, expires, nonce(podName));
  }

  public void lock(String uid, String podName, Instant expires, String nonce) {
    writeLocks(
        new NodeLockSet(
            List.of(
                new NodeLock(
                    uid,
                    NAMESPACE,
                    podName,
                    expires.minus(Duration.ofMinutes(10)),
                    expires,
                    nonce,
                    shapes.getOrDefault(podName, "shape-" + podName),
                    counts.getOrDefault(podName, List.of(1)),
                    0)),
            List.of()));
  }

  /** Writes {@code locks} on the node's Lease as they are, whatever it held. */
  private void writeLocks(NodeLockSet locks) {
    Map<String, String> value = new HashMap<>(codec.encodeLocks(locks));
    lockAnnotations().keySet().stream()
        .filter(key -> !value.containsKey(key))
        .forEach(key -> value.put(key, null));
    Lease lease = new NodeLocks(client, codec).lease(node);
    if (lease == null) {
      client
          .resource(
              new LeaseBuilder()
                  .withNewMetadata()
                  .withName(node)
                  .withNamespace(NodeLocks.NAMESPACE)
                  .endMetadata()
                  .build())
          .create();
      lease = new NodeLocks(client, codec).lease(node);
    }
    new AnnotationPatches(client).ifUnchanged(lease, value);
  }

  /** The node's lock entries and hand-out records as its Lease carries them; none when none. */
  public Map<String, String> lockAnnotations() {
    Lease lease = new NodeLocks(client, codec).lease(node);
    Map<String, String> locks = new HashMap<>();
    if (lease != null && lease.getMetadata().getAnnotations() != null) {
      lease.getMetadata().getAnnotations().entrySet().stream()
          .filter(annotation -> AnnotationKeys.isNodeLockKey(annotation.getKey()))
          .forEach(annotation -> locks.put(annotation.getKey(), annotation.getValue()));
    }
    return locks;
  }

  public String podAnnotation(String pod, String key) {
    return client
        .pods()
        .inNamespace(NAMESPACE)
        .withName(pod)
        .get()
        .getMetadata()
        .getAnnotations()
        .get(key);
  }

  public String nodeAnnotation(String key) {
    Map<String, String> annotations =
        client.nodes().withName(node).get().getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(key);
  }
}
