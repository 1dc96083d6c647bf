package org.vnpu.scheduler;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory one port's requests in flight may hold. A parsed JSON request takes about {@link
 * #EXPANSION} times its body, so each byte of a body is charged {@code EXPANSION} bytes as it
 * arrives, never what a request declares it will send: a client that announces 10 MB and sends a
 * byte every few seconds holds a few bytes of it. One peer (a remote address) may hold at most a
 * {@code 1/peerDivisor} of the budget, so one client cannot turn the others away. A charge that
 * does not fit is refused at once: the request gets 503, and what it held is given back.
 */
final class RequestBudget {

  static final int EXPANSION = 30;

  /**
   * What a byte costs in a body parsed keeping only a few fields ({@link KeptFields}): the body
   * itself, and its chunks as they arrived.
   */
  static final int FILTERED_EXPANSION = 2;

  private final long total;
  private final long perPeer;
  private final AtomicLong used = new AtomicLong();
  private final ConcurrentMap<String, Long> byPeer = new ConcurrentHashMap<>();

  /**
   * @param bytes the memory all requests in flight may hold
   * @param peerDivisor one peer may hold at most {@code bytes / peerDivisor}
   */
  RequestBudget(long bytes, int peerDivisor) {
    this.total = bytes;
    this.perPeer = bytes / peerDivisor;
  }

  /** A budget of {@code 1/divisor} of the JVM's maximum heap, a quarter of it per peer. */
  static RequestBudget ofHeap(int divisor) {
    return new RequestBudget(Runtime.getRuntime().maxMemory() / divisor, 4);
  }

  /** An account for one request of {@code peer}; closing it gives back what it holds. */
  Charge open(String peer) {
    return open(peer, EXPANSION);
  }

  /** {@link #open(String)}, each byte of the body charged {@code expansion} bytes. */
  Charge open(String peer, int expansion) {
    return new Charge(peer, expansion);
  }

  /** What one request holds. */
  final class Charge implements AutoCloseable {
    private final String peer;
    private final int expansion;
    private long held;
    private boolean closed;

    private Charge(String peer, int expansion) {
      this.peer = peer;
      this.expansion = expansion;
    }

    /**
     * Charges {@code bytes} more of body ({@code expansion} times as much); false, charging
     * nothing, when the port's budget or the peer's part of it would be exceeded.
     */
    synchronized boolean add(int bytes) {
      long cost = (long) bytes * expansion;
      if (closed || used.addAndGet(cost) > total) {
        used.addAndGet(-cost);
        return false;
      }
      boolean[] fits = {true};
      byPeer.compute(
          peer,
          (key, peerHeld) -> {
            long now = (peerHeld == null ? 0 : peerHeld) + cost;
            fits[0] = now <= perPeer;
            return fits[0] ? Long.valueOf(now) : peerHeld;
          });
      if (!fits[0]) {
        used.addAndGet(-cost);
        return false;
      }
      held += cost;
      return true;
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      if (held > 0) {
        used.addAndGet(-held);
        byPeer.computeIfPresent(peer, (key, peerHeld) -> peerHeld == held ? null : peerHeld - held);
      }
    }
  }

  String describe() {
    return (used.get() >> 20)
        + " of "
        + (total >> 20)
        + " MiB of the request budget in use, at most "
        + (perPeer >> 20)
        + " MiB per client";
  }
}
