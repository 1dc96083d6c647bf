package org.vnpu.api.signing;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.HexFormat;

/**
 * An Ed25519 public key and its ID, {@code ed25519-} and the first 8 bytes of the SHA-256 of its
 * X.509 form in hex: a valid ConfigMap key and file name.
 *
 * @param id names the key in signatures
 * @param key the key
 */
public record VerifyingKey(String id, PublicKey key) {

  static VerifyingKey of(PublicKey key) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getEncoded());
      return new VerifyingKey("ed25519-" + HexFormat.of().formatHex(digest, 0, 8), key);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is unavailable in this JVM", e);
    }
  }

  /**
   * The key as {@link #encoded()} wrote it.
   *
   * @throws IllegalArgumentException when it is not a base64 Ed25519 public key
   */
  public static VerifyingKey decode(String encoded) {
    try {
      return of(
          KeyFactory.getInstance(SigningKey.ALGORITHM)
              .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(encoded.strip()))));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("not a base64 Ed25519 public key: " + e.getMessage(), e);
    }
  }

  /** The key's X.509 form in base64, as ConfigMaps and files carry it. */
  public String encoded() {
    return Base64.getEncoder().encodeToString(x509());
  }

  byte[] x509() {
    return key.getEncoded();
  }
}
