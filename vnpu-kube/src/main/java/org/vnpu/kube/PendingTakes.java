package org.vnpu.kube;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;

/**
 * Lock entries waiting to be taken, per node: the takes that arrive while a write of a node's locks
 * is under way wait for it and then go together in the next one (a group commit), so that pods
 * bound onto one node at once cost that node one write each turn rather than one each.
 */
final class PendingTakes {

  /** One entry to take, and what became of it. */
  record Take(NodeLock lock, Instant now, CompletableFuture<Void> outcome) {

    void taken() {
      outcome.complete(null);
    }

    void refused(NodeLocks.RefusedException why) {
      outcome.completeExceptionally(why);
    }

    /** Its turn failed with {@code e} (the API server's answer), unless it was decided before. */
    void failed(RuntimeException e) {
      outcome.completeExceptionally(e);
    }

    boolean decided() {
      return outcome.isDone();
    }
  }

  /**
   * One turn of a batch of takes on a node's locks as read.
   *
   * @param locks the locks with the entries added
   * @param added the takes whose entries were added, each decided against those before it
   * @param blocked the takes a live entry blocks, with that entry
   */
  record Turn(NodeLockSet locks, List<Take> added, Map<Take, NodeLock> blocked) {

    /**
     * The turn of {@code batch} on {@code held}; empty when a take is blocked on the {@code cached}
     * copy of the node, as a refusal is decided on a fresh read.
     */
    static Optional<Turn> of(NodeLockSet held, List<Take> batch, boolean cached) {
      NodeLockSet locks = held;
      List<Take> added = new ArrayList<>();
      Map<Take, NodeLock> blocked = new LinkedHashMap<>();
      for (Take take : batch) {
        NodeLock lock = take.lock();
        Optional<NodeLock> blocker =
            locks.blocker(lock.podUid(), lock.shape(), lock.counts(), take.now());
        if (blocker.isEmpty()) {
          locks = locks.with(lock, take.now());
          added.add(take);
        } else if (cached) {
          return Optional.empty();
        } else {
          blocked.put(take, blocker.get());
        }
      }
      return Optional.of(new Turn(locks, added, blocked));
    }
  }

  private final Map<String, Queue<Take>> waiting = new ConcurrentHashMap<>();

  /** Queues {@code lock} for {@code node}; the next turn of the node's writer takes it. */
  Take add(String node, NodeLock lock, Instant now) {
    Take take = new Take(lock, now, new CompletableFuture<>());
    waiting.computeIfAbsent(node, name -> new ConcurrentLinkedQueue<>()).add(take);
    return take;
  }

  /** The takes waiting for {@code node}, in their order, no longer waiting. */
  List<Take> drain(String node) {
    List<Take> batch = new ArrayList<>();
    Queue<Take> queue = waiting.get(node);
    for (Take take = queue == null ? null : queue.poll(); take != null; take = queue.poll()) {
      batch.add(take);
    }
    return batch;
  }

  /**
   * What became of {@code take}, once decided: returns when it was taken, throws why it was
   * refused, or rethrows what its write failed with.
   */
  static void outcome(Take take) throws NodeLocks.RefusedException {
    try {
      take.outcome().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof NodeLocks.RefusedException refused) {
        throw new NodeLocks.RefusedException(refused.getMessage(), refused.heldByAnother());
      }
      if (e.getCause() instanceof RuntimeException failed) {
        throw failed;
      }
      throw e;
    }
  }
}
