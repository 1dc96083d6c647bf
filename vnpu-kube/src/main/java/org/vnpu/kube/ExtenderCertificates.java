package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.HttpURLConnection;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The certificates of the extender's TLS port: a certificate authority of its own, the server
 * certificate the scheduler serves (valid for the Service's names) and the client certificate
 * kube-scheduler presents. All three live in one Secret the first scheduler replica makes, never in
 * the chart, so no render replaces them (as for the signing key, ADR 0011); kube-scheduler mounts
 * the CA and the client pair from it. The server certificate is issued again from the stored CA
 * when the names it must cover change. Keys are ECDSA P-256; certificates last ten years. Rotate by
 * deleting the Secret and restarting the schedulers, then kube-scheduler.
 */
public final class ExtenderCertificates {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderCertificates.class);

  /** The Secret's entries, in PEM. */
  public static final String CA_CERT = "ca.crt";

  public static final String CA_KEY = "ca.key";
  public static final String SERVER_CERT = "tls.crt";
  public static final String SERVER_KEY = "tls.key";
  public static final String CLIENT_CERT = "client.crt";
  public static final String CLIENT_KEY = "client.key";

  /** The client certificate's subject; the server admits any client certificate of its CA. */
  public static final String CLIENT_NAME = "vnpu-kube-scheduler";

  private static final Duration VALIDITY = Duration.ofDays(3650);
  private static final Duration CLOCK_SKEW = Duration.ofHours(1);
  private static final int ATTEMPTS = 5;
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A certificate and its private key. */
  private record Pair(X509Certificate certificate, PrivateKey key) {}

  private final Pair authority;
  private final Pair server;
  private final Pair client;

  private ExtenderCertificates(Pair authority, Pair server, Pair client) {
    this.authority = authority;
    this.server = server;
    this.client = client;
  }

  /**
   * The certificates in Secret {@code secret} of {@code namespace}, made and stored there if there
   * are none, with the server certificate issued again (by the stored CA) when it does not cover
   * {@code serverNames} (DNS names or IP addresses).
   *
   * @throws IllegalStateException when the Secret holds something else
   */
  public static ExtenderCertificates bootstrap(
      KubernetesClient client, String namespace, String secret, List<String> serverNames) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      Secret existing = client.secrets().inNamespace(namespace).withName(secret).get();
      try {
        if (existing == null) {
          ExtenderCertificates made = issue(serverNames, Instant.now());
          client
              .secrets()
              .inNamespace(namespace)
              .resource(made.secret(namespace, secret, null))
              .create();
          LOG.info(
              "made the extender's CA and certificates for {} in Secret {}/{}",
              serverNames,
              namespace,
              secret);
          return made;
        }
        ExtenderCertificates stored = decode(namespace, secret, existing);
        if (stored.covers(serverNames)) {
          LOG.info("serving TLS with the certificates of Secret {}/{}", namespace, secret);
          return stored;
        }
        ExtenderCertificates reissued = stored.withServerFor(serverNames, Instant.now());
        client
            .secrets()
            .inNamespace(namespace)
            .resource(reissued.secret(namespace, secret, existing))
            .update();
        LOG.info(
            "issued a server certificate for {} in Secret {}/{} (it covered other names)",
            serverNames,
            namespace,
            secret);
        return reissued;
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
          throw e;
        }
        // Another replica wrote first: read what it wrote.
      }
    }
    throw new IllegalStateException("Secret " + namespace + "/" + secret + " kept changing");
  }

  /** A new CA with a server certificate for {@code serverNames} and a client certificate. */
  public static ExtenderCertificates issue(List<String> serverNames, Instant now) {
    Pair authority = authority(now);
    return new ExtenderCertificates(
        authority,
        leaf(authority, "vnpu-extender", KeyPurposeId.id_kp_serverAuth, serverNames, now),
        leaf(authority, CLIENT_NAME, KeyPurposeId.id_kp_clientAuth, List.of(), now));
  }

  /** Whether the server certificate is valid for each of {@code names}. */
  public boolean covers(List<String> names) {
    return names(server.certificate()).containsAll(names);
  }

  /** TLS for the server: its certificate, and client certificates accepted from this CA only. */
  public SSLContext serverContext() {
    return context(server);
  }

  /** TLS for a client of the extender: the client certificate, servers trusted from this CA. */
  public SSLContext clientContext() {
    return context(client);
  }

  public X509Certificate authority() {
    return authority.certificate();
  }

  public X509Certificate serverCertificate() {
    return server.certificate();
  }

  public X509Certificate clientCertificate() {
    return client.certificate();
  }

  private ExtenderCertificates withServerFor(List<String> serverNames, Instant now) {
    return new ExtenderCertificates(
        authority,
        leaf(authority, "vnpu-extender", KeyPurposeId.id_kp_serverAuth, serverNames, now),
        client);
  }

  private Secret secret(String namespace, String name, Secret existing) {
    Map<String, String> data = new HashMap<>();
    put(data, CA_CERT, authority, CA_KEY);
    put(data, SERVER_CERT, server, SERVER_KEY);
    put(data, CLIENT_CERT, client, CLIENT_KEY);
    SecretBuilder builder =
        existing == null
            ? new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .withType("Opaque")
            : new SecretBuilder(existing);
    return builder.withData(data).build();
  }

  private static void put(Map<String, String> data, String certEntry, Pair pair, String keyEntry) {
    try {
      data.put(certEntry, base64(pem("CERTIFICATE", pair.certificate().getEncoded())));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("a certificate made here does not encode", e);
    }
    data.put(keyEntry, base64(pem("PRIVATE KEY", pair.key().getEncoded())));
  }

  private static ExtenderCertificates decode(String namespace, String name, Secret secret) {
    Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
    try {
      return new ExtenderCertificates(
          pair(data, CA_CERT, CA_KEY),
          pair(data, SERVER_CERT, SERVER_KEY),
          pair(data, CLIENT_CERT, CLIENT_KEY));
    } catch (IllegalArgumentException | GeneralSecurityException e) {
      throw new IllegalStateException(
          "Secret "
              + namespace
              + "/"
              + name
              + " does not hold the extender's certificates ("
              + e.getMessage()
              + "); delete it and new ones are made",
          e);
    }
  }

  private static Pair pair(Map<String, String> data, String certEntry, String keyEntry)
      throws GeneralSecurityException {
    String cert = unbase64(data, certEntry);
    X509Certificate certificate =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(
                    new ByteArrayInputStream(cert.getBytes(StandardCharsets.US_ASCII)));
    PrivateKey key =
        KeyFactory.getInstance("EC")
            .generatePrivate(
                new PKCS8EncodedKeySpec(unpem("PRIVATE KEY", unbase64(data, keyEntry), keyEntry)));
    return new Pair(certificate, key);
  }

  private static String unbase64(Map<String, String> data, String entry) {
    String value = data.get(entry);
    if (value == null) {
      throw new IllegalArgumentException("entry " + entry + " is missing");
    }
    return new String(Base64.getDecoder().decode(value), StandardCharsets.US_ASCII);
  }

  private static Pair authority(Instant now) {
    KeyPair keys = keyPair();
    X500Principal name = new X500Principal("CN=vnpu-extender-ca");
    try {
      X509v3CertificateBuilder builder =
          builder(name, name, keys, now)
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
              .addExtension(
                  Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      return new Pair(sign(builder, keys.getPrivate()), keys.getPrivate());
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode a certificate extension", e);
    }
  }

  private static Pair leaf(
      Pair authority, String commonName, KeyPurposeId purpose, List<String> names, Instant now) {
    KeyPair keys = keyPair();
    try {
      X509v3CertificateBuilder builder =
          builder(
                  authority.certificate().getSubjectX500Principal(),
                  new X500Principal("CN=" + commonName),
                  keys,
                  now)
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
              .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
              .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      if (!names.isEmpty()) {
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(
                names.stream().map(ExtenderCertificates::generalName).toArray(GeneralName[]::new)));
      }
      return new Pair(sign(builder, authority.key()), keys.getPrivate());
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode a certificate extension", e);
    }
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

  private static KeyPair keyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK cannot make P-256 keys", e);
    }
  }

  private static Set<String> names(X509Certificate certificate) {
    Set<String> names = new TreeSet<>();
    try {
      Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
      if (alternatives != null) {
        alternatives.forEach(entry -> names.add(String.valueOf(entry.get(1))));
      }
    } catch (CertificateParsingException e) {
      LOG.warn("the server certificate's names do not parse: {}", e.toString());
    }
    return names;
  }

  private SSLContext context(Pair own) {
    try {
      char[] password = new char[0];
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry(
          "own", own.key(), password, new X509Certificate[] {own.certificate(), authority()});
      KeyManagerFactory keyManagers =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, password);
      KeyStore trusted = KeyStore.getInstance("PKCS12");
      trusted.load(null, null);
      trusted.setCertificateEntry("ca", authority());
      TrustManagerFactory trustManagers =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trustManagers.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), RANDOM);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot set up TLS with the extender's certificates", e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  private static byte[] unpem(String type, String text, String entry) {
    String begin = "-----BEGIN " + type + "-----";
    String end = "-----END " + type + "-----";
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("entry " + entry + " is not a PEM " + type);
    }
    return Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }
}
