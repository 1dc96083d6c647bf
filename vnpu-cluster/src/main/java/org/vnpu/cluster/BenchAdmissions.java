package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.kube.DaemonThreads;
import org.vnpu.kube.Informers;
import org.vnpu.kube.NodeLocks;

/**
 * What the device plugins of the benchmark's nodes would write once the kubelet admitted a pod: the
 * node's lock entry of the pod goes. The scheduler locks a node for each pod it reserves there, and
 * a pod of another shape may not take the node until the entry goes (the device plugin's Allocate
 * tells the pods apart by their lock entries, docs/scheduler.md). On nodes without a kubelet
 * nothing would release it until it expired, and a burst of mixed shapes would measure the lock's
 * timeout. Here each bound pod's entry is released with the device plugin's account, one write per
 * pod; a real node writes a hand-out record in its place, which the scheduler's settlement removes
 * with one more. Every node's plugin writes on its own, one write after the other, so the releases
 * have {@value #WRITERS} writers, each node's always on the same one: with 4 for the whole cluster,
 * a 1,000-node row's releases fell 40 s behind its bindings and the entries kept half the nodes
 * from other shapes; with 32 taking any node, a node that binpack fills took them all, one waiting
 * on the other, for 15 s. The longest a release waited is measured.
 */
final class BenchAdmissions implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BenchAdmissions.class);
  private static final int WRITERS = 32;

  private final NodeLocks locks;
  private final Set<String> nodes;
  private final Set<String> admitted = ConcurrentHashMap.newKeySet();
  private final List<ExecutorService> writers =
      IntStream.range(0, WRITERS)
          .mapToObj(
              i -> Executors.newSingleThreadExecutor(DaemonThreads.named("vnpu-bench-admissions")))
          .toList();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong longestRelease = new AtomicLong();
  private final SharedIndexInformer<Pod> pods;

  /**
   * Starts releasing the entries of pods bound to {@code nodes}.
   *
   * @param client reads the pods
   * @param devicePlugin writes the nodes' locks, as their device plugins would
   */
  BenchAdmissions(KubernetesClient client, KubernetesClient devicePlugin, Set<String> nodes) {
    this.locks = new NodeLocks(devicePlugin, new PayloadCodec());
    this.nodes = Set.copyOf(nodes);
    this.pods =
        client
            .pods()
            .inAnyNamespace()
            .inform(
                Informers.handler(this::admit, pod -> admitted.remove(pod.getMetadata().getUid())));
  }

  /** Releases that failed so far (each tenth is logged). */
  long failures() {
    return failures.get();
  }

  /** The longest a bound pod's entry waited for its release, from when its binding was seen. */
  Duration longestRelease() {
    return Duration.ofNanos(longestRelease.get());
  }

  private void admit(Pod pod) {
    String node = pod.getSpec().getNodeName();
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    String uid = pod.getMetadata().getUid();
    if (node == null
        || !nodes.contains(node)
        || annotations == null
        || !annotations.containsKey(AnnotationKeys.ALLOCATION)
        || !admitted.add(uid)) {
      return;
    }
    long seen = System.nanoTime();
    writers
        .get(Math.floorMod(node.hashCode(), WRITERS))
        .execute(
            () -> {
              try {
                locks.release(node, uid);
                longestRelease.accumulateAndGet(System.nanoTime() - seen, Math::max);
              } catch (KubernetesClientException e) {
                if (failures.incrementAndGet() % 10 == 1) {
                  LOG.warn(
                      "releasing the lock entry of pod UID {} on {}: {}",
                      uid,
                      node,
                      e.getMessage());
                }
              }
            });
  }

  @Override
  public void close() {
    pods.close();
    writers.forEach(ExecutorService::shutdownNow);
  }
}
