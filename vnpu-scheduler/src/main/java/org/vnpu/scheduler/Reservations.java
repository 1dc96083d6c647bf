package org.vnpu.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AnnotationKeys;

/**
 * The pods reserved on a node and not bound yet, each until it expires: those this scheduler
 * reserved, and those it found reserved on the API server (by an earlier leader, or before a
 * restart), counted from their {@code huawei.com/bind-time}. Not thread-safe: the {@link
 * SchedulerState} guards it with its lock.
 */
final class Reservations {

  /** A reservation of pod {@code uid}. */
  record Reservation(String uid, String namespace, String name, String node, Instant expiresAt) {}

  private final Duration timeout;
  private final Map<String, Reservation> byUid = new HashMap<>();

  Reservations(Duration timeout) {
    this.timeout = timeout;
  }

  /** The pod {@code uid} was reserved on {@code node} at {@code at}. */
  void reserved(String uid, String namespace, String name, String node, Instant at) {
    byUid.put(uid, new Reservation(uid, namespace, name, node, at.plus(timeout)));
  }

  /**
   * The pod {@code uid}, found reserved and unbound with these annotations, was reserved at its
   * bind time ({@code now} when that cannot be read).
   */
  void found(
      String uid,
      String namespace,
      String name,
      String node,
      Map<String, String> annotations,
      Instant now) {
    Instant at;
    try {
      at = Instant.parse(annotations.get(AnnotationKeys.BIND_TIME));
    } catch (RuntimeException e) {
      at = now;
    }
    reserved(uid, namespace, name, node, at);
  }

  /** Whether the pod's reservation is pending: made, not bound, not expired or undone. */
  boolean pending(String uid) {
    return byUid.containsKey(uid);
  }

  /** The pod {@code uid} was bound, released or is gone. */
  void ended(String uid) {
    byUid.remove(uid);
  }

  /** The reservations whose time ran out before {@code now}. */
  List<Reservation> expiredAt(Instant now) {
    List<Reservation> expired = new ArrayList<>();
    for (Reservation reservation : byUid.values()) {
      if (now.isAfter(reservation.expiresAt())) {
        expired.add(reservation);
      }
    }
    return expired;
  }
}
