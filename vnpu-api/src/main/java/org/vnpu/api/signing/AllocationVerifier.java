package org.vnpu.api.signing;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Signature;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.SignedAllocation;

/**
 * Checks that an allocation was signed, unchanged, with one of a set of public keys.
 *
 * <p>Every update of a pod or node carries the signed allocations again (a node's hand-out records
 * in a burst, a pod's annotation at each status change), and an Ed25519 check costs far more than
 * reading them: measured in a burst, half of the sandbox's CPU. So a signature that verified is
 * remembered, by its key, itself and the SHA-256 of exactly what it signs; the same signature over
 * the same bytes by the same key verifies again without the curve arithmetic. A key that leaves the
 * set is asked for first, so a remembered signature of a removed key no longer verifies; a
 * signature that failed is not remembered. At most {@value #REMEMBERED} are kept, all forgotten
 * when that many are.
 */
public final class AllocationVerifier {

  static final int REMEMBERED = 4_096;

  private final KeySet keys;
  private final PayloadCodec codec;
  private final Set<Verified> verified = ConcurrentHashMap.newKeySet();
  private final AtomicLong signatureChecks = new AtomicLong();

  /** A signature that verified: the key, the signature, and the digest of the bytes it signs. */
  private record Verified(VerifyingKey key, String signature, String digest) {}

  public AllocationVerifier(KeySet keys, PayloadCodec codec) {
    this.keys = keys;
    this.codec = codec;
  }

  /** The verifier of {@code key}'s signatures alone (a scheduler's own, in tests and sandboxes). */
  public static AllocationVerifier of(SigningKey key, PayloadCodec codec) {
    return new AllocationVerifier(KeySet.of(List.of(key.verifying())), codec);
  }

  /**
   * Whether {@code signed} is an allocation for the pod {@code podUid} on the node {@code node} and
   * carries a valid signature ({@link #verifies}): the test before anything read from an annotation
   * or a record is acted on for a pod there. The pod and node are compared first, so a copy for
   * another pod or node costs no signature check.
   */
  public boolean verifiesFor(SignedAllocation signed, String podUid, String node) {
    return signed.allocation().podUid().equals(podUid)
        && signed.allocation().node().equals(node)
        && verifies(signed);
  }

  /**
   * Whether {@code signed} carries a signature, by the key it names, over exactly its allocation
   * and nonce; false for an unknown key or anything malformed.
   */
  public boolean verifies(SignedAllocation signed) {
    Optional<VerifyingKey> key = keys.find(signed.keyId());
    if (key.isEmpty()) {
      return false;
    }
    byte[] bytes = AllocationSigner.signedBytes(codec, signed.allocation(), signed.nonce());
    Verified seen = new Verified(key.get(), signed.signature(), digest(bytes));
    if (verified.contains(seen)) {
      return true;
    }
    try {
      signatureChecks.incrementAndGet();
      Signature signature = Signature.getInstance(SigningKey.ALGORITHM);
      signature.initVerify(key.get().key());
      signature.update(bytes);
      if (!signature.verify(Base64.getDecoder().decode(signed.signature()))) {
        return false;
      }
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      return false;
    }
    if (verified.size() >= REMEMBERED) {
      verified.clear();
    }
    verified.add(seen);
    return true;
  }

  /** How many signatures were checked with the curve (not answered from memory), for tests. */
  long signatureChecks() {
    return signatureChecks.get();
  }

  /** How many verified signatures are remembered, for tests. */
  int remembered() {
    return verified.size();
  }

  private static String digest(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is unavailable in this JVM", e);
    }
  }

  /** Whether the set holds the key {@code keyId}, for messages that tell an unknown key apart. */
  public boolean knows(String keyId) {
    return keys.find(keyId).isPresent();
  }
}
