package org.vnpu.exporter;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.MalformedPayloadException;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.kube.Informers;
import org.vnpu.kube.PodPhases;

/**
 * The vNPU allocations of the pods on this node, kept by an informer: a pod appears when its
 * allocation does and disappears when it is deleted or finished. Only allocations whose signature
 * verifies count, so no one who can write a pod's annotations adds series or vNPUs to a chip.
 */
public final class PodAllocations implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PodAllocations.class);

  /** One pod's allocation. */
  /**
   * A pod's verified allocation.
   *
   * @param filesKey the key of its hand-out's files on the node: the reservation's nonce
   */
  public record PodVnpus(
      String uid, String namespace, String name, PodAllocation allocation, String filesKey) {}

  private final String node;
  private final AllocationVerifier verifier;
  private final PayloadCodec codec = new PayloadCodec();
  private final Map<String, PodVnpus> pods = new ConcurrentHashMap<>();
  private SharedIndexInformer<Pod> informer;

  private PodAllocations(String node, AllocationVerifier verifier) {
    this.node = node;
    this.verifier = verifier;
  }

  /**
   * Starts watching the pods of {@code node}.
   *
   * @param serverSideFilter select the node's pods with a field selector on {@code spec.nodeName}
   *     (what a real API server should do); false watches every pod and filters here, for API
   *     servers without field selectors (fabric8's mock)
   * @param verifier checks the allocations' signatures
   */
  public static PodAllocations watch(
      KubernetesClient client, String node, boolean serverSideFilter, AllocationVerifier verifier) {
    PodAllocations allocations = new PodAllocations(node, verifier);
    ResourceEventHandler<Pod> handler =
        Informers.handler(
            allocations::update, pod -> allocations.pods.remove(pod.getMetadata().getUid()));
    allocations.informer =
        serverSideFilter
            ? client.pods().inAnyNamespace().withField("spec.nodeName", node).inform(handler)
            : client.pods().inAnyNamespace().inform(handler);
    return allocations;
  }

  /** The pods with a live allocation on this node. */
  public Collection<PodVnpus> current() {
    return List.copyOf(pods.values());
  }

  private void update(Pod pod) {
    String uid = pod.getMetadata().getUid();
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(AnnotationKeys.ALLOCATION);
    if (value == null || PodPhases.finished(pod)) {
      pods.remove(uid);
      return;
    }
    try {
      SignedAllocation signed = codec.decodeAllocation(value);
      PodAllocation allocation = signed.allocation();
      if (!allocation.node().equals(node)) {
        pods.remove(uid); // another node's pod: its exporter checks it
      } else if (!verifier.verifiesFor(signed, uid, node)) {
        LOG.warn(
            "pod {}/{}: its allocation's signature does not verify; not shown",
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getName());
        pods.remove(uid);
      } else {
        pods.put(
            uid,
            new PodVnpus(
                uid,
                pod.getMetadata().getNamespace(),
                pod.getMetadata().getName(),
                allocation,
                signed.nonce()));
      }
    } catch (MalformedPayloadException e) {
      LOG.warn(
          "pod {}/{}: {}",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          e.getMessage());
      pods.remove(uid);
    }
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
  }
}
