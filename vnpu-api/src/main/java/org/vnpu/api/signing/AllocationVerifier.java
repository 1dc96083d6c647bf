package org.vnpu.api.signing;

import java.security.GeneralSecurityException;
import java.security.Signature;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.vnpu.api.codec.PayloadCodec;

/** Checks that an allocation was signed, unchanged, with one of a set of public keys. */
public final class AllocationVerifier {

  private final KeySet keys;
  private final PayloadCodec codec;

  public AllocationVerifier(KeySet keys, PayloadCodec codec) {
    this.keys = keys;
    this.codec = codec;
  }

  /** The verifier of {@code key}'s signatures alone (a scheduler's own, in tests and sandboxes). */
  public static AllocationVerifier of(SigningKey key, PayloadCodec codec) {
    return new AllocationVerifier(KeySet.of(List.of(key.verifying())), codec);
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
    try {
      Signature signature = Signature.getInstance(SigningKey.ALGORITHM);
      signature.initVerify(key.get().key());
      signature.update(AllocationSigner.signedBytes(codec, signed.allocation(), signed.nonce()));
      return signature.verify(Base64.getDecoder().decode(signed.signature()));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      return false;
    }
  }

  /** Whether the set holds the key {@code keyId}, for messages that tell an unknown key apart. */
  public boolean knows(String keyId) {
    return keys.find(keyId).isPresent();
  }
}
