package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.kube.NodeLocks;

/**
 * The scheduler's {@link ClusterPort} as maps: pods by namespace and name, each with a version that
 * every write bumps, as an API server's resource version; each node's lock entries; the hand-out
 * records settled. A write can be made to fail as the API server's can, so that the actions'
 * compensations are tested without one.
 */
final class InMemoryCluster implements ClusterPort {

  private final Map<String, Pod> pods = new HashMap<>();
  private final Map<String, Map<String, NodeLock>> locks = new HashMap<>();
  private long version;
  private boolean annotationsFail;
  private boolean bindingsFail;
  private String lockedFor;
  private volatile CountDownLatch held = new CountDownLatch(0);

  /** Stores {@code pod} as created. */
  void create(Pod pod) {
    Pod stored = new PodBuilder(pod).build();
    stored.getMetadata().setAnnotations(new HashMap<>(annotations(stored)));
    stored.getMetadata().setResourceVersion(Long.toString(++version));
    pods.put(key(stored.getMetadata().getNamespace(), stored.getMetadata().getName()), stored);
  }

  /** Deletes the pod. */
  void delete(String namespace, String name) {
    pods.remove(key(namespace, name));
  }

  /** Every annotation write fails from now on, as with an API server that does not answer. */
  void failAnnotations() {
    annotationsFail = true;
  }

  /** Every binding fails from now on. */
  void failBindings() {
    bindingsFail = true;
  }

  /** Every node is locked for pod {@code uid}: lock attempts of other pods are refused. */
  void lockEveryNodeFor(String uid) {
    lockedFor = uid;
  }

  /** Writes of pod annotations and node locks wait from now on until {@link #releaseWrites}. */
  void holdWrites() {
    held = new CountDownLatch(1);
  }

  /** The writes held wait no longer. */
  void releaseWrites() {
    held.countDown();
  }

  private void awaitTurn() {
    try {
      if (!held.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("writes held for 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Pod {@code uid}'s lock entry on {@code node}, if it has one. */
  Optional<NodeLock> lockOf(String node, String uid) {
    return Optional.ofNullable(locks.getOrDefault(node, Map.of()).get(uid));
  }

  @Override
  public void lock(String node, NodeLock lock, Instant now) throws NodeLocks.RefusedException {
    awaitTurn();
    if (lockedFor != null && !lockedFor.equals(lock.podUid())) {
      throw new NodeLocks.RefusedException(
          "node " + node + " is locked for pod UID " + lockedFor, true);
    }
    locks.computeIfAbsent(node, n -> new HashMap<>()).put(lock.podUid(), lock);
  }

  @Override
  public boolean unlock(String node, String uid) {
    return locks.getOrDefault(node, new HashMap<>()).remove(uid) != null;
  }

  @Override
  public boolean unlockDeleted(String node, String uid) {
    return unlock(node, uid);
  }

  @Override
  public boolean settled(String node, String nonce) {
    return true; // no hand-out records are kept here
  }

  @Override
  public void annotate(String namespace, String name, Map<String, String> changes) {
    awaitTurn();
    if (annotationsFail) {
      throw new IllegalStateException("the API server did not answer");
    }
    Pod pod = pods.get(key(namespace, name));
    if (pod == null) {
      throw new IllegalStateException("pods \"" + name + "\" not found");
    }
    changes.forEach(
        (key, value) -> {
          if (value == null) {
            pod.getMetadata().getAnnotations().remove(key);
          } else {
            pod.getMetadata().getAnnotations().put(key, value);
          }
        });
    pod.getMetadata().setResourceVersion(Long.toString(++version));
  }

  @Override
  public boolean annotateIfUnchanged(Pod read, Map<String, String> changes) {
    Pod pod = pods.get(key(read.getMetadata().getNamespace(), read.getMetadata().getName()));
    if (pod == null
        || !pod.getMetadata()
            .getResourceVersion()
            .equals(read.getMetadata().getResourceVersion())) {
      return false;
    }
    annotate(read.getMetadata().getNamespace(), read.getMetadata().getName(), changes);
    return true;
  }

  @Override
  public void bind(
      String namespace, String name, String uid, String node, Map<String, String> annotations) {
    Pod pod = pods.get(key(namespace, name));
    if (bindingsFail || pod == null || !pod.getMetadata().getUid().equals(uid)) {
      throw new IllegalStateException("cannot bind pod " + namespace + "/" + name);
    }
    pod.getSpec().setNodeName(node);
    if (!annotations.isEmpty()) {
      Map<String, String> merged = new HashMap<>();
      if (pod.getMetadata().getAnnotations() != null) {
        merged.putAll(pod.getMetadata().getAnnotations());
      }
      merged.putAll(annotations);
      pod.getMetadata().setAnnotations(merged);
    }
    pod.getMetadata().setResourceVersion(Long.toString(++version));
  }

  @Override
  public Optional<Pod> pod(String namespace, String name) {
    return Optional.ofNullable(pods.get(key(namespace, name))).map(p -> new PodBuilder(p).build());
  }

  @Override
  public Optional<ResourceClaim> claim(String namespace, String name) {
    return Optional.empty();
  }

  private static Map<String, String> annotations(Pod pod) {
    return pod.getMetadata().getAnnotations() == null
        ? Map.of()
        : pod.getMetadata().getAnnotations();
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }
}
