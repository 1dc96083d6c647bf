package org.vnpu.api.payload;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The pods reserved on a node and not yet handed out, and the hand-outs whose holder is not settled
 * yet, on the node's lock Lease, one annotation each ({@code huawei.com/vnpu-node-lock.<pod UID>},
 * {@code huawei.com/vnpu-node-handout.<digest>}). Several pods may hold the node at once as long as
 * every pair {@linkplain NodeLock#mayShareNodeWith may share it}, so that the device plugin can
 * tell from an Allocate call alone whose vNPUs — or whose interchangeable vNPUs — it hands out
 * ({@link #serving}).
 *
 * @param holders one entry per pod, at most one per pod UID
 * @param handouts hand-outs that may have gone to another pod of the same shape, at most one per
 *     nonce
 */
public record NodeLockSet(List<NodeLock> holders, List<HandoutRecord> handouts) {

  /** No pod holds the node. */
  public static final NodeLockSet EMPTY = new NodeLockSet(List.of(), List.of());

  private static final Comparator<NodeLock> ARRIVAL =
      Comparator.comparing(NodeLock::acquiredAt).thenComparing(NodeLock::podUid);

  public NodeLockSet {
    holders = Checks.list(holders, "holders");
    handouts = Checks.list(handouts, "handouts");
    Set<String> uids = new HashSet<>();
    for (NodeLock holder : holders) {
      if (!uids.add(holder.podUid())) {
        throw new IllegalArgumentException(
            "holders name pod UID " + holder.podUid() + " more than once");
      }
    }
    Set<String> nonces = new HashSet<>();
    for (HandoutRecord handout : handouts) {
      if (!nonces.add(handout.nonce())) {
        throw new IllegalArgumentException(
            "handouts name nonce " + handout.nonce() + " more than once");
      }
    }
  }

  /** The entry of the pod {@code podUid}. */
  public Optional<NodeLock> of(String podUid) {
    return holders.stream().filter(holder -> holder.podUid().equals(podUid)).findFirst();
  }

  /** The entries that have not expired at {@code now}. */
  public List<NodeLock> live(Instant now) {
    return holders.stream().filter(holder -> !holder.isExpiredAt(now)).toList();
  }

  /**
   * The live entry of another pod that keeps the pod {@code podUid}, whose containers ask for
   * {@code counts} vNPUs, off this node now; empty when the pod may join.
   */
  public Optional<NodeLock> blocker(
      String podUid, String shape, List<Integer> counts, Instant now) {
    return live(now).stream()
        .filter(holder -> !holder.mayShareNodeWith(podUid, shape, counts))
        .findFirst();
  }

  /** This set with {@code lock} added (replacing its pod's entry) and expired entries dropped. */
  public NodeLockSet with(NodeLock lock, Instant now) {
    List<NodeLock> next = new ArrayList<>();
    for (NodeLock holder : live(now)) {
      if (!holder.podUid().equals(lock.podUid())) {
        next.add(holder);
      }
    }
    next.add(lock);
    return new NodeLockSet(next, handouts);
  }

  /** This set without the pod {@code podUid}'s entry. */
  public NodeLockSet without(String podUid) {
    return new NodeLockSet(
        holders.stream().filter(holder -> !holder.podUid().equals(podUid)).toList(), handouts);
  }

  /**
   * Whether the entry of the pod {@code podUid} may stand for another pod: a pod of its shape was
   * handed out while it stood and who holds that hand-out is not known yet. The kubelet may have
   * admitted the pod {@code podUid} on that pod's entry; that pod, still waiting, is then the one
   * this entry serves, and only the kubelet's answer tells ({@code HandoutResolver}).
   */
  public boolean mayStandForAnother(String podUid) {
    return of(podUid)
        .map(
            entry ->
                handouts.stream()
                    .anyMatch(
                        handout ->
                            handout.heldBy() == null && handout.shape().equals(entry.shape())))
        .orElse(false);
  }

  /** This set with one more container of the pod {@code podUid} handed out. */
  public NodeLockSet afterHandout(String podUid) {
    return new NodeLockSet(
        holders.stream()
            .map(holder -> holder.podUid().equals(podUid) ? holder.afterHandout() : holder)
            .toList(),
        handouts);
  }

  /**
   * This set after the last container of the pod {@code podUid} was handed out at {@code now}: its
   * entry removed, and {@code record} kept when the hand-out may have gone to another pod — when
   * another live entry or an unsettled hand-out has the same shape. Otherwise the kubelet can only
   * have been admitting that pod (the only one of its kind here, with nothing of its kind
   * outstanding).
   */
  public NodeLockSet afterLastHandout(String podUid, HandoutRecord record, Instant now) {
    NodeLockSet without = without(podUid);
    boolean alike =
        without.live(now).stream().anyMatch(holder -> holder.shape().equals(record.shape()))
            || handouts.stream().anyMatch(handout -> handout.shape().equals(record.shape()));
    if (!alike) {
      return without;
    }
    List<HandoutRecord> next = new ArrayList<>(handouts);
    next.add(record);
    return new NodeLockSet(without.holders, next);
  }

  /** The hand-out of reservation {@code nonce}. */
  public Optional<HandoutRecord> handout(String nonce) {
    return handouts.stream().filter(handout -> handout.nonce().equals(nonce)).findFirst();
  }

  /** This set with the hand-out of reservation {@code nonce} held by {@code holder}. */
  public NodeLockSet heldBy(String nonce, PodRef holder) {
    return new NodeLockSet(
        holders,
        handouts.stream()
            .map(handout -> handout.nonce().equals(nonce) ? handout.heldBy(holder) : handout)
            .toList());
  }

  /** This set without the hand-out of reservation {@code nonce}: its holder names it now. */
  public NodeLockSet settled(String nonce) {
    return new NodeLockSet(
        holders, handouts.stream().filter(handout -> !handout.nonce().equals(nonce)).toList());
  }

  /**
   * The entries an Allocate call for {@code count} vNPUs may serve now, in the order to try them:
   * the pod the kubelet is admitting ({@linkplain NodeLock#started started}) first, then the
   * reserved pods that ask for that many, earliest first. The kubelet admits one pod at a time and
   * makes all of its Allocate calls inside that admission, so a started pod's calls come before any
   * other pod's.
   */
  public List<NodeLock> serving(int count, Instant now) {
    return live(now).stream()
        .filter(holder -> holder.serves(count))
        .sorted(Comparator.comparing((NodeLock holder) -> !holder.started()).thenComparing(ARRIVAL))
        .toList();
  }
}
