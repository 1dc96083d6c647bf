package org.vnpu.kube;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * An X.509 certificate and its private key (ECDSA P-256, SHA-256, ten years), made by BouncyCastle
 * because the JDK verifies certificates but has no public API to make them: a CA, and the server
 * and client certificates it issues. The extender's TLS (ADR 0012) and the real control plane's
 * certificates are made here.
 */
public record CertificatePair(X509Certificate certificate, PrivateKey key) {

  private static final Duration VALIDITY = Duration.ofDays(3650);
  private static final Duration CLOCK_SKEW = Duration.ofHours(1);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** What a leaf certificate is for. */
  public enum Use {
    SERVER(KeyPurposeId.id_kp_serverAuth),
    CLIENT(KeyPurposeId.id_kp_clientAuth);

    private final KeyPurposeId purpose;

    Use(KeyPurposeId purpose) {
      this.purpose = purpose;
    }
  }

  /** A new self-signed CA named {@code commonName}. */
  public static CertificatePair authority(String commonName, Instant now) {
    KeyPair keys = keyPair();
    X500Principal name = new X500Principal("CN=" + commonName);
    try {
      X509v3CertificateBuilder builder =
          builder(name, name, keys, now)
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
              .addExtension(
                  Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      return new CertificatePair(sign(builder, keys.getPrivate()), keys.getPrivate());
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode a certificate extension", e);
    }
  }

  /**
   * A certificate this CA issues.
   *
   * @param subject e.g. {@code CN=system:node:n1, O=system:nodes} (Kubernetes reads the user from
   *     CN and the groups from O)
   * @param names DNS names or IP addresses it is valid for (servers)
   */
  public CertificatePair issue(X500Principal subject, Use use, List<String> names, Instant now) {
    KeyPair keys = keyPair();
    try {
      X509v3CertificateBuilder builder =
          builder(certificate.getSubjectX500Principal(), subject, keys, now)
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
              .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
              .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(use.purpose));
      if (!names.isEmpty()) {
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(
                names.stream().map(CertificatePair::generalName).toArray(GeneralName[]::new)));
      }
      return new CertificatePair(sign(builder, key), keys.getPrivate());
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode a certificate extension", e);
    }
  }

  /** {@link #issue} with a subject of one common name. */
  public CertificatePair issue(String commonName, Use use, List<String> names, Instant now) {
    return issue(new X500Principal("CN=" + commonName), use, names, now);
  }

  /** The DNS names and IP addresses the certificate is valid for. */
  public Set<String> names() {
    Set<String> names = new TreeSet<>();
    try {
      Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
      if (alternatives != null) {
        alternatives.forEach(entry -> names.add(String.valueOf(entry.get(1))));
      }
    } catch (CertificateParsingException e) {
      throw new IllegalStateException("a certificate's names do not parse: " + e.getMessage(), e);
    }
    return names;
  }

  public String certificatePem() {
    try {
      return pem("CERTIFICATE", certificate.getEncoded());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("a certificate made here does not encode", e);
    }
  }

  /** The private key, PKCS #8. */
  public String keyPem() {
    return pem("PRIVATE KEY", key.getEncoded());
  }

  /** A pair read back from its PEM texts; {@code what} names them in errors. */
  public static CertificatePair fromPem(String certificatePem, String keyPem, String what)
      throws GeneralSecurityException {
    X509Certificate certificate =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(
                    new ByteArrayInputStream(certificatePem.getBytes(StandardCharsets.US_ASCII)));
    PrivateKey key =
        KeyFactory.getInstance("EC")
            .generatePrivate(new PKCS8EncodedKeySpec(unpem("PRIVATE KEY", keyPem, what)));
    return new CertificatePair(certificate, key);
  }

  /** TLS presenting this pair, trusting certificates of {@code authority} only. */
  public SSLContext context(X509Certificate authority) {
    try {
      char[] password = new char[0];
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("own", key, password, new X509Certificate[] {certificate, authority});
      KeyManagerFactory keyManagers =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, password);
      return context(keyManagers, authority);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot set up TLS with these certificates", e);
    }
  }

  /** TLS presenting no certificate, trusting servers of {@code authority} only. */
  public static SSLContext trusting(X509Certificate authority) {
    try {
      return context(null, authority);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot set up TLS trusting " + authority, e);
    }
  }

  private static SSLContext context(KeyManagerFactory keyManagers, X509Certificate authority)
      throws GeneralSecurityException, IOException {
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("ca", authority);
    TrustManagerFactory trustManagers =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(
        keyManagers == null ? null : keyManagers.getKeyManagers(),
        trustManagers.getTrustManagers(),
        RANDOM);
    return context;
  }

  /** {@code der} as PEM of {@code type} ({@code CERTIFICATE}, {@code PUBLIC KEY}, ...). */
  public static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  private static byte[] unpem(String type, String text, String what) {
    String begin = "-----BEGIN " + type + "-----";
    String end = "-----END " + type + "-----";
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    if (from < 0 || to < from) {
      throw new IllegalArgumentException(what + " is not a PEM " + type);
    }
    return Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
  }

  private static GeneralName generalName(String name) {
    boolean address = name.matches("[0-9.]+") || name.contains(":");
    return new GeneralName(address ? GeneralName.iPAddress : GeneralName.dNSName, name);
  }

  private static X509v3CertificateBuilder builder(
      X500Principal issuer, X500Principal subject, KeyPair keys, Instant now) {
    return new JcaX509v3CertificateBuilder(
        issuer,
        new BigInteger(127, RANDOM),
        Date.from(now.minus(CLOCK_SKEW)),
        Date.from(now.plus(VALIDITY)),
        subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey) {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(
              builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
    } catch (OperatorCreationException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign a certificate", e);
    }
  }

  /** A new P-256 key pair (also the control plane's service-account signing key). */
  public static KeyPair keyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK cannot make P-256 keys", e);
    }
  }
}
