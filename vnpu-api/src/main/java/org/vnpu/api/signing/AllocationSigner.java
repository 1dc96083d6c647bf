package org.vnpu.api.signing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.PodAllocation;

/**
 * Signs allocations and verifies signatures with HMAC-SHA256 over {@link
 * PayloadCodec#canonicalForm(PodAllocation)}. The canonical form includes the pod UID and node, so
 * a signature copied onto another pod or node does not verify. Thread-safe.
 */
public final class AllocationSigner {

  /** Shortest key accepted: the HMAC-SHA256 block-size guidance of RFC 2104 §3. */
  public static final int MIN_KEY_BYTES = 32;

  private static final String ALGORITHM = "HmacSHA256";

  private final SecretKeySpec key;
  private final PayloadCodec codec;

  public AllocationSigner(byte[] key, PayloadCodec codec) {
    if (key.length < MIN_KEY_BYTES) {
      throw new IllegalArgumentException(
          "allocation signing key has "
              + key.length
              + " bytes: at least "
              + MIN_KEY_BYTES
              + " are needed; generate one with `head -c 32 /dev/urandom`");
    }
    this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    this.codec = codec;
  }

  /**
   * A signer whose key is the whole content of {@code file}, byte for byte (a mounted Secret; no
   * trailing newline is stripped, as random keys may end in one).
   *
   * @throws IllegalArgumentException when the file cannot be read or the key is too short
   */
  public static AllocationSigner fromKeyFile(Path file, PayloadCodec codec) {
    byte[] key;
    try {
      key = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the allocation signing key " + file + ": " + e, e);
    }
    try {
      return new AllocationSigner(key, codec);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /** The allocation with its signature. */
  public SignedAllocation sign(PodAllocation allocation) {
    return new SignedAllocation(allocation, Base64.getEncoder().encodeToString(mac(allocation)));
  }

  /** Whether the signature was made with this key over exactly this allocation. */
  public boolean verifies(SignedAllocation signed) {
    byte[] presented;
    try {
      presented = Base64.getDecoder().decode(signed.signature());
    } catch (IllegalArgumentException notBase64) {
      return false;
    }
    // MessageDigest.isEqual compares in time independent of where the arrays differ.
    return MessageDigest.isEqual(mac(signed.allocation()), presented);
  }

  private byte[] mac(PodAllocation allocation) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac.doFinal(codec.canonicalForm(allocation));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      // Every Java SE runtime ships HmacSHA256, and the key was accepted by SecretKeySpec.
      throw new IllegalStateException("HmacSHA256 is unavailable in this JVM", e);
    }
  }
}
