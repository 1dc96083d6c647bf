package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.MalformedPayloadException;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;

/**
 * A node's allocation locks ({@link AnnotationKeys#NODE_LOCK}), the one implementation the
 * scheduler takes an entry with and the scheduler and the device plugin read, advance and release
 * entries with. Every change is a compare-and-set on the node as it was read, retried a few times;
 * an entry is compared by its decoded pod UID, never by text.
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
   * The locks {@code node} carries, decoded; none when it has none, or a value that cannot be
   * decoded (logged), which anyone may replace.
   */
  public NodeLockSet held(Node node) {
    String value =
        node.getMetadata().getAnnotations() == null
            ? null
            : node.getMetadata().getAnnotations().get(AnnotationKeys.NODE_LOCK);
    if (value == null) {
      return NodeLockSet.EMPTY;
    }
    try {
      return codec.decodeLock(value);
    } catch (MalformedPayloadException e) {
      LOG.warn("node {} has a malformed lock: {}", node.getMetadata().getName(), e.getMessage());
      return NodeLockSet.EMPTY;
    }
  }

  /**
   * Adds {@code lock} to the locks of {@code name}, unless a live entry of another pod {@linkplain
   * NodeLock#mayShareNodeWith may not share} the node with it at {@code now}.
   */
  public void take(String name, NodeLock lock, Instant now) throws RefusedException {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      Node node = client.nodes().withName(name).get();
      if (node == null) {
        throw new RefusedException("node " + name + " does not exist", false);
      }
      NodeLockSet held = held(node);
      Optional<NodeLock> blocker = held.blocker(lock.podUid(), lock.counts(), now);
      if (blocker.isPresent()) {
        throw new RefusedException(
            "node "
                + name
                + " is locked by pod "
                + blocker.get().podNamespace()
                + "/"
                + blocker.get().podName()
                + " until "
                + blocker.get().expiresAt(),
            true);
      }
      if (write(node, held.with(lock, now))) {
        return;
      }
    }
    throw new RefusedException("node " + name + " kept changing; could not take its lock", false);
  }

  /**
   * Records on the locks of {@code name} that one more container of the pod {@code podUid} was
   * handed out.
   *
   * @return whether the pod's entry was there and was updated
   */
  public boolean handedOut(String name, String podUid) {
    return change(name, podUid, held -> held.afterHandout(podUid));
  }

  /**
   * Removes the entry of the pod {@code podUid} from the locks of {@code name}; other pods' entries
   * stay.
   *
   * @return whether an entry of that pod was removed
   */
  public boolean release(String name, String podUid) {
    boolean released = change(name, podUid, held -> held.without(podUid));
    if (released) {
      LOG.info("released the lock of node {} held for pod UID {}", name, podUid);
    }
    return released;
  }

  /** Applies {@code change} to the locks of {@code name} if the pod {@code podUid} has an entry. */
  private boolean change(String name, String podUid, UnaryOperator<NodeLockSet> change) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      Node node = client.nodes().withName(name).get();
      if (node == null) {
        return false;
      }
      NodeLockSet held = held(node);
      if (held.of(podUid).isEmpty()) {
        return false;
      }
      if (write(node, change.apply(held))) {
        return true;
      }
    }
    LOG.warn(
        "could not change the lock of node {} for pod UID {} after {} attempts; it expires",
        name,
        podUid,
        ATTEMPTS);
    return false;
  }

  /** Writes {@code locks} on {@code node} as it was read; none removes the annotation. */
  private boolean write(Node node, NodeLockSet locks) {
    Map<String, String> change = new HashMap<>();
    change.put(
        AnnotationKeys.NODE_LOCK, locks.holders().isEmpty() ? null : codec.encodeLock(locks));
    return patches.nodeIfUnchanged(node, change);
  }
}
