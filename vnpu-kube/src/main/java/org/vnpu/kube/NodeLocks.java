package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.MalformedPayloadException;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.PodRef;

/**
 * A node's allocation locks (one annotation per entry, {@link AnnotationKeys#nodeLock}, on the
 * node's Lease, {@link LockLeases}), the one implementation the scheduler takes an entry with and
 * the scheduler and the device plugin read, advance and release entries with. A take, and every
 * change decided on other entries too, is a compare-and-set on the Lease as it was read; a change
 * of one entry alone (a release, a hand-out) is refused only when that entry changed. Both are
 * retried a few times; an entry is compared by its decoded pod UID, never by text.
 */
public final class NodeLocks {

  /**
   * The namespace of the nodes' lock Leases. One name for every installation, as the entries are
   * one set per node for the whole cluster, as the Node annotation they replace was (ADR 0032).
   */
  public static final String NAMESPACE = "vnpu-node-locks";

  private static final Logger LOG = LoggerFactory.getLogger(NodeLocks.class);
  // A node's locks are written by the scheduler and by the node's device plugin at once during a
  // burst: conflicts are expected, and each retry waits a little longer, at random.
  private static final int ATTEMPTS = 20;

  /** The lock could not be taken; {@link #heldByAnother()} when another pod's lock stands. */
  public static final class RefusedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean heldByAnother;

    public RefusedException(String message, boolean heldByAnother) {
      super(message);
      this.heldByAnother = heldByAnother;
    }

    public boolean heldByAnother() {
      return heldByAnother;
    }
  }

  private final PayloadCodec codec;
  private final LockLeases leases;
  private final PendingTakes pending = new PendingTakes();

  /**
   * One monitor per node: this component's own writes of a node's locks go one after the other
   * (kube-scheduler binds pods at once, each binding reserves), so that they do not fail each
   * other's compare-and-set; other components' writes may still conflict and are retried. Entries
   * to take that wait meanwhile go together in the next write ({@link PendingTakes}).
   */
  private final Map<String, Object> writers = new ConcurrentHashMap<>();

  public NodeLocks(KubernetesClient client, PayloadCodec codec) {
    this.codec = codec;
    this.leases = new LockLeases(client);
  }

  /**
   * A node's Lease as a watch delivered it: the next change of its locks starts from it when it is
   * later than the Lease as this component last read or wrote it (a watch usually delivers another
   * component's release before this component next locks the node, which then needs no read). A
   * change starts from the copy kept rather than from a new read: the compare-and-set refuses it
   * when anyone changed the Lease since, and only then is it read again. A refusal decided on a
   * kept copy (another pod's entry, an entry missing) is decided again on a fresh read.
   */
  public void seen(Lease lease) {
    leases.remember(lease);
  }

  /** The node {@code name} or its Lease was deleted: no change starts from a copy of it. */
  public void forget(String name) {
    leases.forget(name);
  }

  /** The Lease of the node {@code name} as the API server has it now; null when it has none. */
  public Lease lease(String name) {
    return leases.read(name);
  }

  /** The locks of the node {@code name} as the API server has them now. */
  public NodeLockSet current(String name) {
    Lease lease = leases.read(name);
    return lease == null ? NodeLockSet.EMPTY : held(lease);
  }

  /**
   * The locks {@code lease} carries, decoded; none when it has none, or a value that cannot be
   * decoded (logged), which anyone may replace.
   */
  public NodeLockSet held(Lease lease) {
    try {
      return codec.locksOf(lease.getMetadata().getAnnotations());
    } catch (MalformedPayloadException e) {
      LOG.warn("node {} has a malformed lock: {}", lease.getMetadata().getName(), e.getMessage());
      return NodeLockSet.EMPTY;
    }
  }

  /**
   * Adds {@code lock} to the locks of {@code name}, unless a live entry of another pod {@linkplain
   * NodeLock#mayShareNodeWith may not share} the node with it at {@code now}. Entries taken on one
   * node at once go in one write ({@link PendingTakes}), each decided as if taken in turn.
   */
  public void take(String name, NodeLock lock, Instant now) throws RefusedException {
    PendingTakes.Take take = pending.add(name, lock, now);
    synchronized (writer(name)) {
      if (!take.decided()) {
        List<PendingTakes.Take> batch = pending.drain(name);
        try {
          takeInTurn(name, batch);
        } catch (RuntimeException e) {
          batch.forEach(each -> each.failed(e));
        }
      }
    }
    PendingTakes.outcome(take);
  }

  /** Decides and writes {@code batch}; every take of it is decided when it returns. */
  private void takeInTurn(String name, List<PendingTakes.Take> batch) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      backOff(attempt);
      Lease cached = attempt == 0 ? leases.known(name) : null;
      Lease lease = cached != null ? cached : leases.read(name);
      NodeLockSet held = lease == null ? NodeLockSet.EMPTY : held(lease);
      Optional<PendingTakes.Turn> turn = PendingTakes.Turn.of(held, batch, cached != null);
      if (turn.isEmpty()) {
        continue;
      }
      if (lease == null && !turn.get().added().isEmpty()) {
        LockLeases.Created created = leases.create(name, codec.encodeLocks(turn.get().locks()));
        if (created == LockLeases.Created.NO_NODE) {
          refuseAll(batch, "node " + name + " does not exist");
          return;
        }
        if (created == LockLeases.Created.EXISTS) {
          continue;
        }
      } else if (!turn.get().added().isEmpty() && !write(lease, turn.get().locks())) {
        continue;
      }
      turn.get().added().forEach(PendingTakes.Take::taken);
      turn.get().blocked().forEach((take, blocker) -> take.refused(lockedBy(name, blocker)));
      return;
    }
    refuseAll(
        batch,
        "node " + name + " kept changing (" + ATTEMPTS + " attempts); could not take its lock");
  }

  private static RefusedException lockedBy(String name, NodeLock blocker) {
    return new RefusedException(
        "node "
            + name
            + " is locked by pod "
            + blocker.podNamespace()
            + "/"
            + blocker.podName()
            + " until "
            + blocker.expiresAt(),
        true);
  }

  private static void refuseAll(List<PendingTakes.Take> batch, String why) {
    batch.stream()
        .filter(take -> !take.decided())
        .forEach(take -> take.refused(new RefusedException(why, false)));
  }

  /**
   * Records on the locks of {@code name} that one more container of the pod {@code podUid} was
   * handed out.
   *
   * @return whether the pod's entry was there and was updated
   */
  public boolean handedOut(String name, String podUid) {
    return changeKeys(name, held -> held.of(podUid).isPresent(), held -> held.afterHandout(podUid));
  }

  /**
   * Records on the locks of {@code name} that the last container of the pod {@code podUid} was
   * handed out at {@code now} ({@link NodeLockSet#afterLastHandout}). A compare-and-set of the
   * whole Lease: whether to keep a record is decided on the other entries, and one decided on a
   * copy that still shows a pod of the same shape released since keeps a record no pod will name,
   * which charges its allocation until the device plugin drops it minutes later.
   *
   * @return whether the pod's entry was there and was removed
   */
  public boolean lastHandedOut(String name, String podUid, HandoutRecord record, Instant now) {
    return change(
        name,
        held -> held.of(podUid).isPresent(),
        held -> held.afterLastHandout(podUid, record, now));
  }

  /**
   * Records what the device plugin learnt of the hand-outs on the locks of {@code name}, in one
   * write: {@code settled} go, each of {@code heldBy} gets its holder, and the entries of the pods
   * {@code surplus} go (no Allocate will serve them). All of it was learnt from the locks {@code
   * basis}: when they have changed since (an Allocate served an entry, a pod was reserved), nothing
   * is written, as an entry surplus then may be needed now; the next pass learns again.
   *
   * @return whether the locks were still {@code basis} and were changed
   */
  public boolean resolved(
      String name,
      NodeLockSet basis,
      Set<String> settled,
      Map<String, PodRef> heldBy,
      Set<String> surplus) {
    return change(
        name,
        held ->
            held.equals(basis)
                && (held.handouts().stream()
                        .anyMatch(
                            handout ->
                                settled.contains(handout.nonce())
                                    || heldBy.containsKey(handout.nonce()))
                    || surplus.stream().anyMatch(uid -> held.of(uid).isPresent())),
        held -> {
          NodeLockSet next = held;
          for (String nonce : settled) {
            next = next.settled(nonce);
          }
          for (String uid : surplus) {
            next = next.without(uid);
          }
          for (Map.Entry<String, PodRef> entry : heldBy.entrySet()) {
            next = next.heldBy(entry.getKey(), entry.getValue());
          }
          return next;
        });
  }

  /** Removes the hand-out of reservation {@code nonce} from the locks of {@code name}. */
  public boolean settled(String name, String nonce) {
    return changeKeys(name, held -> held.handout(nonce).isPresent(), held -> held.settled(nonce));
  }

  /**
   * Removes the entry of the pod {@code podUid} from the locks of {@code name}; other pods' entries
   * stay.
   *
   * @return whether an entry of that pod was removed
   */
  public boolean release(String name, String podUid) {
    boolean released =
        changeKeys(name, held -> held.of(podUid).isPresent(), held -> held.without(podUid));
    logReleased(released, name, podUid);
    return released;
  }

  /**
   * Removes the entry of the pod {@code podUid}, which was deleted, from the locks of {@code name},
   * unless the entry {@linkplain NodeLockSet#mayStandForAnother may stand for another pod}: the pod
   * may have been admitted on an interchangeable pod's entry, which leaves its own to that pod. The
   * device plugin releases such an entry once the kubelet says that no pod waits for it.
   *
   * @return whether an entry of that pod was removed
   */
  public boolean releaseDeleted(String name, String podUid) {
    boolean released =
        change(
            name,
            held -> held.of(podUid).isPresent() && !held.mayStandForAnother(podUid),
            held -> held.without(podUid));
    logReleased(released, name, podUid);
    if (!released && current(name).mayStandForAnother(podUid)) {
      LOG.info(
          "kept the entry of deleted pod UID {} on node {}: a pod of its shape may wait for"
              + " its admission on it; the device plugin releases it once the kubelet tells",
          podUid,
          name);
    }
    return released;
  }

  private static void logReleased(boolean released, String name, String podUid) {
    if (released) {
      LOG.info("released the lock of node {} held for pod UID {}", name, podUid);
    }
  }

  /**
   * Applies {@code change} to the locks of {@code name} while they are as {@code applies} asks: a
   * compare-and-set of the whole Lease, refused when anything on it changed since it was read.
   */
  private boolean change(
      String name, Predicate<NodeLockSet> applies, UnaryOperator<NodeLockSet> change) {
    synchronized (writer(name)) {
      return changeInTurn(name, applies, (lease, held) -> write(lease, change.apply(held)));
    }
  }

  /**
   * {@link #change}, refused only when an entry or record it changes or removes changed since it
   * was read, not when other entries did (ADR 0032's one key per entry): for a change whose
   * decision depends on no other entry than those, such as a release.
   */
  private boolean changeKeys(
      String name, Predicate<NodeLockSet> applies, UnaryOperator<NodeLockSet> change) {
    synchronized (writer(name)) {
      return changeInTurn(
          name, applies, (lease, held) -> writeKeys(lease, held, change.apply(held)));
    }
  }

  private Object writer(String name) {
    return writers.computeIfAbsent(name, node -> new Object());
  }

  private boolean changeInTurn(
      String name, Predicate<NodeLockSet> applies, BiPredicate<Lease, NodeLockSet> written) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      backOff(attempt);
      Lease cached = attempt == 0 ? leases.known(name) : null;
      Lease lease = cached != null ? cached : leases.read(name);
      if (lease == null) {
        return false;
      }
      NodeLockSet held = held(lease);
      if (!applies.test(held)) {
        if (cached != null) {
          continue; // seen on the node as it was: decide on a fresh read
        }
        return false;
      }
      if (written.test(lease, held)) {
        return true;
      }
    }
    LOG.warn("could not change the locks of node {} after {} attempts", name, ATTEMPTS);
    return false;
  }

  /** Before a retry: up to 2 ms per attempt so far, at random. */
  private static void backOff(int attempt) {
    if (attempt == 0) {
      return;
    }
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(2L * attempt + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Writes {@code locks} on {@code lease} as it was read; an empty set removes every entry. */
  private boolean write(Lease lease, NodeLockSet locks) {
    return leases.write(lease, codec.encodeLocks(locks));
  }

  /**
   * Writes the entries on which {@code next} differs from {@code held}, as read from {@code lease}.
   */
  private boolean writeKeys(Lease lease, NodeLockSet held, NodeLockSet next) {
    return leases.writeChanged(lease, codec.encodeLocks(held), codec.encodeLocks(next));
  }
}
