package org.vnpu.core.ledger;

import java.util.Objects;

/**
 * What the ledger charges an allocation to: a pod by its UID, or a place held for what is not a pod
 * yet. The ledger files each charge under its {@link #ledgerKey}, the allocation's pod UID field:
 * the kind's prefix, which no pod UID has (the API server's UIDs are UUIDs), then the id. {@link
 * #of} reads a key back.
 *
 * @param kind what is charged
 * @param id names it within its kind: a pod's UID, a preemptor's, a moved pod's, a hand-out's nonce
 *     or a claim's UID
 */
public record ChargeKey(Kind kind, String id) {

  /** The kinds of charge, each with the prefix of its keys. */
  public enum Kind {
    /** A pod's own allocation. */
    POD(""),
    /** The place held for a preemptor once its victims are gone (PreemptionHolds). */
    PREEMPTOR_PLACE("held:"),
    /** The place held for the replacement of a moved pod (ReplacementHolds). */
    REPLACEMENT("moving:"),
    /** A hand-out of a node's lock entry that no pod's annotation names yet. */
    HANDOUT("handout:"),
    /** The devices a DRA ResourceClaim was allocated. */
    CLAIM("claim:");

    private final String prefix;

    Kind(String prefix) {
      this.prefix = prefix;
    }
  }

  public ChargeKey {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(id, "id");
  }

  public static ChargeKey pod(String uid) {
    return new ChargeKey(Kind.POD, uid);
  }

  public static ChargeKey preemptorPlace(String preemptorUid) {
    return new ChargeKey(Kind.PREEMPTOR_PLACE, preemptorUid);
  }

  public static ChargeKey replacement(String movedPodUid) {
    return new ChargeKey(Kind.REPLACEMENT, movedPodUid);
  }

  public static ChargeKey handout(String nonce) {
    return new ChargeKey(Kind.HANDOUT, nonce);
  }

  public static ChargeKey claim(String claimUid) {
    return new ChargeKey(Kind.CLAIM, claimUid);
  }

  /** The key the ledger files the charge under. */
  public String ledgerKey() {
    return kind.prefix + id;
  }

  /** The charge a ledger key stands for; a key without a known prefix is a pod's UID. */
  public static ChargeKey of(String ledgerKey) {
    for (Kind kind : Kind.values()) {
      if (kind != Kind.POD && ledgerKey.startsWith(kind.prefix)) {
        return new ChargeKey(kind, ledgerKey.substring(kind.prefix.length()));
      }
    }
    return pod(ledgerKey);
  }
}
