package org.vnpu.scheduler;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.vnpu.core.engine.RejectKind;

/**
 * What the scheduler counted since start, for its metrics: why nodes were refused, lock refusals,
 * what became of the pods preemptions offered, and what the rebalancer did. Thread-safe, so that
 * counting needs no part of the scheduler's monitor.
 */
final class SchedulerCounters {

  private final Map<RejectKind, Long> rejections = new ConcurrentHashMap<>();
  private final AtomicLong lockRefusals = new AtomicLong();
  private final Map<String, Long> preemptionCandidates = new ConcurrentHashMap<>();
  private final Map<String, Long> rebalance = new ConcurrentHashMap<>();

  /**
   * A node refused a pod for {@code kind}; a lock held by another pod counts a lock refusal too.
   */
  void rejected(RejectKind kind) {
    rejections.merge(kind, 1L, Long::sum);
  }

  /** A reservation was refused because another pod held the node's lock. */
  void lockRefused() {
    lockRefusals.incrementAndGet();
  }

  /** A pod a preemption offered became {@code verdict}: evicted, spared or online. */
  void preemptionCandidate(String verdict) {
    preemptionCandidates.merge(verdict, 1L, Long::sum);
  }

  /** The rebalancer did {@code what} (plans, moves, refusals) for {@code label}. */
  void rebalance(String what, String label) {
    rebalance.merge(what + "\n" + label, 1L, Long::sum);
  }

  Map<RejectKind, Long> rejections() {
    return Map.copyOf(rejections);
  }

  long lockRefusals() {
    return lockRefusals.get();
  }

  Map<String, Long> preemptionCandidates() {
    return Map.copyOf(preemptionCandidates);
  }

  /** Keyed {@code plans\n<mode>}, {@code moves\n<mode>} and {@code refusals\n<reason>}. */
  Map<String, Long> rebalance() {
    return Map.copyOf(rebalance);
  }
}
