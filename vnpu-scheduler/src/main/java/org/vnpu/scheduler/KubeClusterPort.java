package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.kube.AnnotationPatches;
import org.vnpu.kube.NodeLocks;
import org.vnpu.kube.PodBindings;

/**
 * The scheduler's {@link ClusterPort} on the API server: the node lock annotation through {@link
 * NodeLocks}, annotation patches through {@link AnnotationPatches}, the binding subresource through
 * {@link PodBindings}.
 */
final class KubeClusterPort implements ClusterPort {

  private final KubernetesClient client;
  private final NodeLocks locks;
  private final AnnotationPatches patches;

  KubeClusterPort(KubernetesClient client, NodeLocks locks) {
    this.client = client;
    this.locks = locks;
    this.patches = new AnnotationPatches(client);
  }

  @Override
  public void lock(String node, NodeLock lock, Instant now) throws NodeLocks.RefusedException {
    locks.take(node, lock, now);
  }

  @Override
  public boolean unlock(String node, String uid) {
    return locks.release(node, uid);
  }

  @Override
  public boolean unlockDeleted(String node, String uid) {
    return locks.releaseDeleted(node, uid);
  }

  @Override
  public boolean settled(String node, String nonce) {
    return locks.settled(node, nonce);
  }

  @Override
  public void annotate(String namespace, String name, Map<String, String> changes) {
    patches.pod(namespace, name, changes);
  }

  @Override
  public boolean annotateIfUnchanged(Pod read, Map<String, String> changes) {
    return patches.ifUnchanged(read, changes);
  }

  @Override
  public void bind(
      String namespace, String name, String uid, String node, Map<String, String> annotations) {
    PodBindings.bind(client, namespace, name, uid, node, annotations);
  }

  @Override
  public Optional<Pod> pod(String namespace, String name) {
    return Optional.ofNullable(client.pods().inNamespace(namespace).withName(name).get());
  }

  @Override
  public Optional<ResourceClaim> claim(String namespace, String name) {
    return Optional.ofNullable(
        client.resources(ResourceClaim.class).inNamespace(namespace).withName(name).get());
  }
}
