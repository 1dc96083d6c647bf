package org.vnpu.core.ledger;

/**
 * What the ledger charges an allocation to: a pod by its UID, or a place held for what is not a pod
 * yet. Each kind writes its key into the allocation's pod UID field under a prefix of its own,
 * which no pod UID has (the API server's UIDs are UUIDs), and {@link #of} reads it back.
 */
public sealed interface ChargeKey {

  /** The key the ledger files the charge under. */
  String ledgerKey();

  /** A pod, by its UID. */
  record Pod(String uid) implements ChargeKey {
    @Override
    public String ledgerKey() {
      return uid;
    }
  }

  /** The place held for a preemptor once its victims are gone, by the preemptor's UID. */
  record PreemptorPlace(String preemptorUid) implements ChargeKey {
    static final String PREFIX = "held:";

    @Override
    public String ledgerKey() {
      return PREFIX + preemptorUid;
    }
  }

  /** The place held for the replacement of a moved pod, by the moved pod's UID. */
  record Replacement(String movedPodUid) implements ChargeKey {
    static final String PREFIX = "moving:";

    @Override
    public String ledgerKey() {
      return PREFIX + movedPodUid;
    }
  }

  /** A hand-out of a node's lock entry no pod names yet, by its nonce. */
  record Handout(String nonce) implements ChargeKey {
    static final String PREFIX = "handout:";

    @Override
    public String ledgerKey() {
      return PREFIX + nonce;
    }
  }

  /** The devices a DRA ResourceClaim was allocated, by the claim's UID. */
  record Claim(String claimUid) implements ChargeKey {
    static final String PREFIX = "claim:";

    @Override
    public String ledgerKey() {
      return PREFIX + claimUid;
    }
  }

  /** The charge a ledger key stands for; a key without a known prefix is a pod's UID. */
  static ChargeKey of(String ledgerKey) {
    if (ledgerKey.startsWith(PreemptorPlace.PREFIX)) {
      return new PreemptorPlace(ledgerKey.substring(PreemptorPlace.PREFIX.length()));
    }
    if (ledgerKey.startsWith(Replacement.PREFIX)) {
      return new Replacement(ledgerKey.substring(Replacement.PREFIX.length()));
    }
    if (ledgerKey.startsWith(Handout.PREFIX)) {
      return new Handout(ledgerKey.substring(Handout.PREFIX.length()));
    }
    if (ledgerKey.startsWith(Claim.PREFIX)) {
      return new Claim(ledgerKey.substring(Claim.PREFIX.length()));
    }
    return new Pod(ledgerKey);
  }
}
