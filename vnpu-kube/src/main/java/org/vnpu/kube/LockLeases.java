package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.vnpu.api.AnnotationKeys;

/**
 * The Leases a node's lock entries live on (ADR 0032): one per node, named after it, in {@link
 * NodeLocks#NAMESPACE}, owned by its Node (the garbage collector deletes it with the node). The
 * entries and hand-out records are its annotations, one key each ({@link
 * AnnotationKeys#isNodeLockKey}); its spec stays empty, as a node holds several entries at once.
 * Each Lease is kept as this component last read, wrote or saw it, whichever is the latest: a
 * change starts from it, and the compare-and-set decides.
 */
final class LockLeases {

  /** What became of creating a node's Lease. */
  enum Created {
    CREATED,
    /** Another component created it first: read it and decide again. */
    EXISTS,
    NO_NODE
  }

  private final KubernetesClient client;
  private final AnnotationPatches patches;
  private final Map<String, Lease> known = new ConcurrentHashMap<>();

  LockLeases(KubernetesClient client) {
    this.client = client;
    this.patches = new AnnotationPatches(client);
  }

  /** The node's Lease as last read, written or seen; null when none is kept. */
  Lease known(String node) {
    return known.get(node);
  }

  /** The node's Lease as the API server has it now, remembered; null when there is none. */
  Lease read(String node) {
    Lease lease =
        client.resources(Lease.class).inNamespace(NodeLocks.NAMESPACE).withName(node).get();
    if (lease == null) {
      known.remove(node);
    } else {
      remember(lease);
    }
    return lease;
  }

  /** Keeps {@code lease} as the start of its node's next change, unless the one kept is later. */
  void remember(Lease lease) {
    known.merge(
        lease.getMetadata().getName(),
        lease,
        (kept, fresh) ->
            ResourceVersions.isOlder(
                    fresh.getMetadata().getResourceVersion(),
                    kept.getMetadata().getResourceVersion())
                ? kept
                : fresh);
  }

  void forget(String node) {
    known.remove(node);
  }

  /**
   * Writes {@code locks} (their annotations, {@link AnnotationKeys#isNodeLockKey}) as the locks of
   * {@code lease} as it was read: lock keys it had and {@code locks} has not are removed.
   *
   * @return false when the Lease changed meanwhile (nothing was written)
   */
  boolean write(Lease lease, Map<String, String> locks) {
    Map<String, String> change = new HashMap<>(locks);
    Map<String, String> had = lease.getMetadata().getAnnotations();
    if (had != null) {
      had.keySet().stream()
          .filter(key -> AnnotationKeys.isNodeLockKey(key) && !locks.containsKey(key))
          .forEach(key -> change.put(key, null));
    }
    return kept(lease, patches.patchIfUnchanged(lease, change));
  }

  /**
   * Writes the lock keys on which {@code after} differs from {@code before} (the locks {@code
   * lease} carries, as {@link #write} takes them), while those it changes or removes still hold the
   * values read, whatever else changed on the Lease ({@link
   * AnnotationPatches#patchIfKeysUnchanged}); a change that only adds keys is {@link #write}.
   *
   * @return false when one of those keys changed, or the Lease is gone (nothing was written)
   */
  boolean writeChanged(Lease lease, Map<String, String> before, Map<String, String> after) {
    Map<String, String> stored = lease.getMetadata().getAnnotations();
    Map<String, String> read = new HashMap<>();
    Map<String, String> changes = new HashMap<>();
    before.forEach(
        (key, value) -> {
          if (!value.equals(after.get(key))) {
            read.put(key, stored.get(key));
            changes.put(key, after.get(key));
          }
        });
    after.forEach(
        (key, value) -> {
          if (!before.containsKey(key)) {
            changes.put(key, value);
          }
        });
    if (read.isEmpty()) {
      return write(lease, after);
    }
    return kept(lease, patches.patchIfKeysUnchanged(lease, read, changes));
  }

  private boolean kept(Lease lease, Optional<Lease> written) {
    if (written.isPresent()) {
      remember(written.get());
    } else {
      known.remove(lease.getMetadata().getName());
    }
    return written.isPresent();
  }

  /**
   * Creates the Lease of {@code node}, owned by the node, with {@code locks} (their annotations) as
   * its locks: a create is a compare-and-set against a Lease that does not exist.
   */
  Created create(String node, Map<String, String> locks) {
    Node owner = client.nodes().withName(node).get();
    if (owner == null) {
      return Created.NO_NODE;
    }
    Lease lease =
        new LeaseBuilder()
            .withNewMetadata()
            .withName(node)
            .withNamespace(NodeLocks.NAMESPACE)
            .withAnnotations(new HashMap<>(locks))
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("v1")
                    .withKind("Node")
                    .withName(node)
                    .withUid(owner.getMetadata().getUid())
                    .build())
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .build();
    try {
      remember(client.resource(lease).create());
      return Created.CREATED;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return Created.EXISTS;
      }
      throw e;
    }
  }
}
