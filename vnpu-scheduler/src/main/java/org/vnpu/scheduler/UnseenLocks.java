package org.vnpu.scheduler;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.BindPhase;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;

/**
 * The lock entries this scheduler took that their node's annotation does not show yet. A
 * reservation's entry is charged to the ledger when it is decided and written to the node after the
 * answer ({@link ReservationWrites}); a node event from before the write must not take it out of
 * the ledger, or the next decision would see the node unlocked and take it for a pod that may not
 * share it. An entry is kept until its node shows it (or the hand-out it became), its reservation
 * ends, or it expires. Not thread-safe: the scheduler's state guards it.
 */
final class UnseenLocks {

  private final Map<String, NodeLock> entries = new HashMap<>();
  private final Map<String, String> nodes = new HashMap<>();

  /** The entry {@code lock} was taken on {@code node} and is on its way there. */
  void taken(String node, NodeLock lock) {
    entries.put(lock.podUid(), lock);
    nodes.put(lock.podUid(), node);
  }

  /** The pod's reservation ended: its entry, if it was unseen, is no longer expected. */
  void ended(String podUid) {
    entries.remove(podUid);
    nodes.remove(podUid);
  }

  /**
   * The pod {@code podUid} is bound, with {@code annotations}: when its bind phase says every
   * container was handed out, its entry was on the node and has gone, whether or not a node event
   * showed it (an informer that lists again shows only the end).
   */
  void bound(String podUid, Map<String, String> annotations) {
    if (BindPhase.SUCCESS.wireName().equals(annotations.get(AnnotationKeys.BIND_PHASE))) {
      ended(podUid);
    }
  }

  /**
   * The locks of {@code node} as the ledger should hold them: {@code annotated}, as the node's
   * annotation says, with the entries still on their way there. Entries it shows, by their nonce,
   * or that it already shows handed out, are no longer unseen; neither are those expired at {@code
   * now}.
   */
  NodeLockSet over(String node, NodeLockSet annotated, Instant now) {
    NodeLockSet locks = annotated;
    for (Map.Entry<String, String> entry : Map.copyOf(nodes).entrySet()) {
      if (!entry.getValue().equals(node)) {
        continue;
      }
      NodeLock lock = entries.get(entry.getKey());
      boolean shown =
          annotated.of(lock.podUid()).filter(held -> held.nonce().equals(lock.nonce())).isPresent()
              || annotated.handout(lock.nonce()).isPresent();
      if (shown || lock.isExpiredAt(now)) {
        ended(lock.podUid());
      } else {
        List<NodeLock> holders = new ArrayList<>(locks.without(lock.podUid()).holders());
        holders.add(lock);
        locks = new NodeLockSet(holders, locks.handouts());
      }
    }
    return locks;
  }
}
