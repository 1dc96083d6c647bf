package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.kube.NodeLocks;

/**
 * What the scheduler's actions (reserve, bind, unreserve, expiry, hand-out settlement) read and
 * write in the cluster: a node's lock entries, a pod's annotations and binding, a pod as it is now,
 * and a ResourceClaim the informer has not delivered yet. {@link KubeClusterPort} is the API
 * server's; tests use an in-memory one, so that the actions' compensations are tested without an
 * API server.
 */
interface ClusterPort {

  /**
   * Takes {@code node}'s lock entry for the lock's pod.
   *
   * @throws NodeLocks.RefusedException when another pod's entry stands, or the node cannot be
   *     written
   */
  void lock(String node, NodeLock lock, Instant now) throws NodeLocks.RefusedException;

  /** Removes {@code node}'s lock entry of pod {@code uid}; whether it had one. */
  boolean unlock(String node, String uid);

  /**
   * Removes {@code node}'s lock entry of pod {@code uid}, which was deleted, unless the entry may
   * stand for an interchangeable pod ({@link NodeLocks#releaseDeleted}); whether it was removed.
   */
  boolean unlockDeleted(String node, String uid);

  /** Removes the hand-out record of reservation {@code nonce} from {@code node}'s locks. */
  boolean settled(String node, String nonce);

  /** Sets (or, for null values, removes) annotations of a pod. */
  void annotate(String namespace, String name, Map<String, String> changes);

  /**
   * Sets (or, for null values, removes) annotations of {@code read} only if nobody changed the pod
   * since it was read; false when somebody did.
   */
  boolean annotateIfUnchanged(Pod read, Map<String, String> changes);

  /**
   * Binds pod {@code uid} (the binding's precondition) to {@code node}; the API server sets {@code
   * annotations} on the pod in the same write ({@code setPodHostAndAnnotations}).
   */
  void bind(
      String namespace, String name, String uid, String node, Map<String, String> annotations);

  /** The pod {@code namespace/name} as it is now; empty when there is none. */
  Optional<Pod> pod(String namespace, String name);

  /** The ResourceClaim {@code namespace/name} as it is now; empty when there is none. */
  Optional<ResourceClaim> claim(String namespace, String name);
}
