package org.vnpu.scheduler;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The nonces of each pod's last undone reservations, by pod UID, kept until the pod is deleted: the
 * informer may deliver copies of the pod from before an undo, and those carry the undone
 * allocation, which must not be charged again. Not thread-safe: the scheduler's state guards it.
 */
final class UndoneReservations {

  /** How many undone reservations of one pod are remembered. */
  private static final int KEPT = 8;

  private final Map<String, Set<String>> nonces = new HashMap<>();

  /** The reservation {@code nonce} of the pod {@code uid} was undone. */
  void undone(String uid, String nonce) {
    Set<String> kept = nonces.computeIfAbsent(uid, u -> new LinkedHashSet<>());
    kept.add(nonce);
    if (kept.size() > KEPT) {
      kept.remove(kept.iterator().next());
    }
  }

  /** Whether the reservation {@code nonce} of the pod {@code uid} was undone. */
  boolean wasUndone(String uid, String nonce) {
    return nonces.getOrDefault(uid, Set.of()).contains(nonce);
  }

  /** The pod is deleted: no later copy of it can carry an undone allocation. */
  void deleted(String uid) {
    nonces.remove(uid);
  }
}
