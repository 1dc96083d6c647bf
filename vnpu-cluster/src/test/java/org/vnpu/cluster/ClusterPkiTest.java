package org.vnpu.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.kube.CertificatePair;

/**
 * The API server knows a node by its certificate's subject, the CA signs every certificate, and a
 * control plane started again over the same directory keeps its CA.
 */
class ClusterPkiTest {

  @TempDir Path directory;

  @Test
  void aNodesCertificateNamesItsUserAndGroupAndTheCaOutlivesARestart() throws Exception {
    ClusterPki pki = ClusterPki.in(directory);
    CertificatePair node = pki.node("a2-infer");

    assertThat(node.certificate().getSubjectX500Principal().getName())
        .isEqualTo("CN=system:node:a2-infer,O=system:nodes");
    node.certificate()
        .verify(
            CertificatePair.fromPem(
                    Files.readString(pki.caCertificate()), Files.readString(pki.caKey()), "ca.key")
                .certificate()
                .getPublicKey());
    assertThat(Files.readString(pki.serviceAccountPublicKey())).startsWith("-----BEGIN PUBLIC KEY");
    assertThat(Files.getPosixFilePermissions(pki.serviceAccountKey()))
        .extracting(Object::toString)
        .containsExactlyInAnyOrder("OWNER_READ", "OWNER_WRITE");

    String ca = Files.readString(pki.caCertificate());
    assertThat(Files.readString(ClusterPki.in(directory).caCertificate())).isEqualTo(ca);
    assertThat(
            pki.client(ClusterPki.ADMIN, List.of("system:masters"))
                .certificate()
                .getSubjectX500Principal()
                .getName())
        .isEqualTo("CN=kubernetes-admin,O=system:masters");
  }
}
