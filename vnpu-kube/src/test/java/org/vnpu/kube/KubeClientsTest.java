package org.vnpu.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.security.KeyPairGenerator;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A kubeconfig's client key is read with its own algorithm, as kubectl reads it. */
class KubeClientsTest {

  private static String pkcs8Pem(String algorithm) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
    if (algorithm.equals("EC")) {
      generator.initialize(256);
    } else {
      generator.initialize(2048);
    }
    byte[] der = generator.generateKeyPair().getPrivate().getEncoded();
    return "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END PRIVATE KEY-----\n";
  }

  @Test
  void thePkcs8KeysAlgorithmIsReadFromTheKey() throws Exception {
    assertThat(KubeClients.keyAlgorithm(pkcs8Pem("EC"))).isEqualTo("EC");
    assertThat(KubeClients.keyAlgorithm(pkcs8Pem("RSA"))).isEqualTo("RSA");
    assertThat(KubeClients.keyAlgorithm("-----BEGIN EC PRIVATE KEY-----\nAA==\n")).isEqualTo("EC");
    assertThat(KubeClients.keyAlgorithm("-----BEGIN RSA PRIVATE KEY-----\nAA==\n"))
        .isEqualTo("RSA");
    assertThat(KubeClients.keyAlgorithm(null)).isNull();
    assertThat(
            KubeClients.keyAlgorithm("-----BEGIN PRIVATE KEY-----\n!!\n-----END PRIVATE KEY-----"))
        .isNull();
  }

  @Test
  void aClientIsBuiltFromAKubeconfigWithAnEcClientKeyInPkcs8Form() {
    CertificatePair client =
        CertificatePair.authority("kubernetes-ca", Instant.now())
            .issue("admin", CertificatePair.Use.CLIENT, List.of(), Instant.now());
    Config config = new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build();
    config.setClientCertData(base64(client.certificatePem()));
    config.setClientKeyData(base64(client.keyPem()));
    config.setClientKeyAlgo("RSA"); // fabric8's default: alone it fails with "Invalid DER"

    try (KubernetesClient built = KubeClients.build(config)) {
      assertThat(built.getConfiguration().getClientKeyAlgo()).isEqualTo("EC");
    }
  }

  private static String base64(String pem) {
    return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII));
  }
}
