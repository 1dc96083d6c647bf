package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kube.CertificatePair.Use;

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

  private static final int ATTEMPTS = 5;

  private final CertificatePair authority;
  private final CertificatePair server;
  private final CertificatePair client;

  private ExtenderCertificates(
      CertificatePair authority, CertificatePair server, CertificatePair client) {
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
    CertificatePair authority = CertificatePair.authority("vnpu-extender-ca", now);
    return new ExtenderCertificates(
        authority,
        authority.issue("vnpu-extender", Use.SERVER, serverNames, now),
        authority.issue(CLIENT_NAME, Use.CLIENT, List.of(), now));
  }

  /** Whether the server certificate is valid for each of {@code names}. */
  public boolean covers(List<String> names) {
    return server.names().containsAll(names);
  }

  /** TLS for the server: its certificate, and client certificates accepted from this CA only. */
  public SSLContext serverContext() {
    return server.context(authority());
  }

  /** TLS for a client of the extender: the client certificate, servers trusted from this CA. */
  public SSLContext clientContext() {
    return client.context(authority());
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
        authority, authority.issue("vnpu-extender", Use.SERVER, serverNames, now), client);
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

  private static void put(
      Map<String, String> data, String certEntry, CertificatePair pair, String keyEntry) {
    data.put(certEntry, base64(pair.certificatePem()));
    data.put(keyEntry, base64(pair.keyPem()));
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

  private static CertificatePair pair(Map<String, String> data, String certEntry, String keyEntry)
      throws GeneralSecurityException {
    return CertificatePair.fromPem(
        unbase64(data, certEntry), unbase64(data, keyEntry), "entry " + keyEntry);
  }

  private static String unbase64(Map<String, String> data, String entry) {
    String value = data.get(entry);
    if (value == null) {
      throw new IllegalArgumentException("entry " + entry + " is missing");
    }
    return new String(Base64.getDecoder().decode(value), StandardCharsets.US_ASCII);
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }
}
