package org.vnpu.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The extender's certificates are made once, by whichever scheduler starts first, kept in a Secret
 * that kube-scheduler mounts, and outlive every render of the chart; they are what kube-scheduler
 * and the server check each other with.
 */
@EnableKubernetesMockClient(crud = true)
class ExtenderCertificatesTest {

  private static final List<String> NAMES =
      List.of("vnpu-scheduler", "vnpu-scheduler.vnpu", "vnpu-scheduler.vnpu.svc");

  KubernetesClient client;

  private ExtenderCertificates bootstrap(List<String> names) {
    return ExtenderCertificates.bootstrap(client, "vnpu", "vnpu-extender-tls", names);
  }

  @Test
  void theFirstSchedulerMakesThemAndEveryLaterOneReadsThem() {
    ExtenderCertificates first = bootstrap(NAMES);
    ExtenderCertificates again = bootstrap(NAMES);

    assertThat(again.authority()).isEqualTo(first.authority());
    assertThat(again.serverCertificate()).isEqualTo(first.serverCertificate());
    assertThat(again.clientCertificate()).isEqualTo(first.clientCertificate());
  }

  @Test
  void kubeSchedulerFindsTheCaAndItsClientPairInTheSecretAsPem() throws Exception {
    ExtenderCertificates made = bootstrap(NAMES);

    var data = client.secrets().inNamespace("vnpu").withName("vnpu-extender-tls").get().getData();
    assertThat(data)
        .containsKeys(
            ExtenderCertificates.CA_CERT,
            ExtenderCertificates.CLIENT_CERT,
            ExtenderCertificates.CLIENT_KEY,
            ExtenderCertificates.SERVER_CERT,
            ExtenderCertificates.SERVER_KEY);
    String clientKey = decoded(data.get(ExtenderCertificates.CLIENT_KEY));
    assertThat(clientKey).startsWith("-----BEGIN PRIVATE KEY-----\n");
    X509Certificate ca = certificate(decoded(data.get(ExtenderCertificates.CA_CERT)));
    X509Certificate client = certificate(decoded(data.get(ExtenderCertificates.CLIENT_CERT)));
    assertThat(ca).isEqualTo(made.authority());
    client.verify(ca.getPublicKey());
    assertThat(client.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
    assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);
  }

  @Test
  void theServerCertificateIsForTheServicesNamesAndOnlyForServing() throws Exception {
    ExtenderCertificates made = bootstrap(NAMES);

    X509Certificate server = made.serverCertificate();
    server.verify(made.authority().getPublicKey());
    assertThat(server.getSubjectAlternativeNames())
        .extracting(entry -> (Object) entry.get(1))
        .containsExactlyInAnyOrder(NAMES.toArray());
    assertThat(server.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
    assertThat(server.getBasicConstraints()).isEqualTo(-1);
    assertThat(server.getNotAfter().toInstant())
        .isAfter(Instant.now().plusSeconds(9L * 365 * 24 * 3600));
  }

  @Test
  void newNamesGetANewServerCertificateFromTheSameAuthority() {
    ExtenderCertificates first = bootstrap(NAMES);

    ExtenderCertificates renamed = bootstrap(List.of("localhost", "127.0.0.1"));

    assertThat(renamed.authority()).isEqualTo(first.authority());
    assertThat(renamed.clientCertificate()).isEqualTo(first.clientCertificate());
    assertThat(renamed.covers(List.of("localhost", "127.0.0.1"))).isTrue();
    assertThat(bootstrap(List.of("localhost")).serverCertificate())
        .isEqualTo(renamed.serverCertificate());
  }

  @Test
  void aSecretHoldingSomethingElseIsNamedAndLeftAlone() {
    client
        .secrets()
        .inNamespace("vnpu")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("vnpu-extender-tls")
                .withNamespace("vnpu")
                .endMetadata()
                .addToData(
                    ExtenderCertificates.CA_CERT,
                    Base64.getEncoder().encodeToString("x".getBytes()))
                .build())
        .create();

    assertThatThrownBy(() -> bootstrap(NAMES))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("vnpu/vnpu-extender-tls")
        .hasMessageContaining("delete it");
    assertThat(client.secrets().inNamespace("vnpu").withName("vnpu-extender-tls").get().getData())
        .containsOnlyKeys(ExtenderCertificates.CA_CERT);
  }

  private static String decoded(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.US_ASCII);
  }

  private static X509Certificate certificate(String pem) throws Exception {
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
  }
}
