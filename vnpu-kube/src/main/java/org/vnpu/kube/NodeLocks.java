package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.MalformedPayloadException;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.NodeLock;

/**
 * A node's allocation lock ({@link AnnotationKeys#NODE_LOCK}), the one implementation the scheduler
 * takes it with and the scheduler and the device plugin read and release it with. Every change is a
 * compare-and-set on the node as it was read, retried a few times; a lock is compared by its
 * decoded pod UID, never by text.
 */
public final class NodeLocks {

  private static final Logger LOG = LoggerFactory.getLogger(NodeLocks.class);
  private static final int ATTEMPTS = 5;

  /** The lock could not be taken; {@link #heldByAnother()} when another pod's lock stands. */
  public static final class RefusedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean heldByAnother;

    RefusedException(String message, boolean heldByAnother) {
      super(message);
      this.heldByAnother = heldByAnother;
    }

    public boolean heldByAnother() {
      return heldByAnother;
    }
  }

  private final KubernetesClient client;
  private final PayloadCodec codec;
  private final AnnotationPatches patches;

  public NodeLocks(KubernetesClient client, PayloadCodec codec) {
    this.client = client;
    this.codec = codec;
    this.patches = new AnnotationPatches(client);
  }

  /**
   * The lock {@code node} carries, decoded; empty when it has none, or one that cannot be decoded
   * (logged), which anyone may replace.
   */
  public Optional<NodeLock> held(Node node) {
    String value =
        node.getMetadata().getAnnotations() == null
            ? null
            : node.getMetadata().getAnnotations().get(AnnotationKeys.NODE_LOCK);
    if (value == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(codec.decodeLock(value));
    } catch (MalformedPayloadException e) {
      LOG.warn("node {} has a malformed lock: {}", node.getMetadata().getName(), e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * Takes the lock of {@code name} for {@code lock}'s pod, unless another pod holds one that has
   * not expired at {@code now}.
   */
  public void take(String name, NodeLock lock, Instant now) throws RefusedException {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      Node node = client.nodes().withName(name).get();
      if (node == null) {
        throw new RefusedException("node " + name + " does not exist", false);
      }
      Optional<NodeLock> held = held(node);
      if (held.isPresent()
          && !held.get().isExpiredAt(now)
          && !held.get().podUid().equals(lock.podUid())) {
        throw new RefusedException(
            "node "
                + name
                + " is locked by pod "
                + held.get().podNamespace()
                + "/"
                + held.get().podName()
                + " until "
                + held.get().expiresAt(),
            true);
      }
      if (patches.nodeIfUnchanged(node, Map.of(AnnotationKeys.NODE_LOCK, codec.encodeLock(lock)))) {
        return;
      }
    }
    throw new RefusedException("node " + name + " kept changing; could not take its lock", false);
  }

  /**
   * Removes the lock of {@code name} if it names the pod {@code podUid}; another pod's lock stays.
   *
   * @return whether a lock of that pod was removed
   */
  public boolean release(String name, String podUid) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      Node node = client.nodes().withName(name).get();
      if (node == null || held(node).filter(lock -> lock.podUid().equals(podUid)).isEmpty()) {
        return false;
      }
      Map<String, String> removal = new HashMap<>();
      removal.put(AnnotationKeys.NODE_LOCK, null);
      if (patches.nodeIfUnchanged(node, removal)) {
        LOG.info("released the lock of node {} held for pod UID {}", name, podUid);
        return true;
      }
    }
    LOG.warn("could not release the lock of node {} after {} attempts; it expires", name, ATTEMPTS);
    return false;
  }
}
