package org.vnpu.api.signing;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.interfaces.EdECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/** The scheduler's Ed25519 private key, with its public half and the key ID signatures name. */
public final class SigningKey {

  static final String ALGORITHM = "Ed25519";

  private final PrivateKey privateKey;
  private final Ed25519PrivateKeyParameters parameters;
  private final VerifyingKey verifying;

  private SigningKey(PrivateKey privateKey, VerifyingKey verifying) {
    this.privateKey = privateKey;
    this.parameters =
        new Ed25519PrivateKeyParameters(
            ((EdECPrivateKey) privateKey)
                .getBytes()
                .orElseThrow(() -> new IllegalArgumentException("the Ed25519 key has no bytes")),
            0);
    this.verifying = verifying;
  }

  /** A new random key. */
  public static SigningKey generate() {
    try {
      KeyPair pair = KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair();
      return new SigningKey(pair.getPrivate(), VerifyingKey.of(pair.getPublic()));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Ed25519 is unavailable in this JVM", e);
    }
  }

  /**
   * The key stored as {@link #pkcs8()} wrote it, with its public half as {@link
   * VerifyingKey#encoded()} wrote it.
   *
   * @throws IllegalArgumentException when either is not an Ed25519 key
   */
  public static SigningKey decode(byte[] pkcs8, String publicKey) {
    try {
      KeyFactory factory = KeyFactory.getInstance(ALGORITHM);
      PrivateKey key = factory.generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
      VerifyingKey verifying = VerifyingKey.decode(publicKey);
      factory.generatePublic(new X509EncodedKeySpec(verifying.x509()));
      return new SigningKey(key, verifying);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not an Ed25519 private key: " + e.getMessage(), e);
    }
  }

  /** The private key in PKCS #8 form, for the Secret that keeps it. */
  public byte[] pkcs8() {
    return privateKey.getEncoded();
  }

  public VerifyingKey verifying() {
    return verifying;
  }

  /** The key as BouncyCastle's signer takes it ({@link AllocationSigner}). */
  Ed25519PrivateKeyParameters parameters() {
    return parameters;
  }
}
