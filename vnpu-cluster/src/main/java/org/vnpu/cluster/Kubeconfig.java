package org.vnpu.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.vnpu.kube.CertificatePair;

/**
 * A kubeconfig for one user of the control plane, its credentials inline: a client certificate (the
 * control plane's own components, nodes, administrators) or a service-account token (vNPU's
 * components, as their pods would hold it). Readable by its owner only.
 */
public final class Kubeconfig {

  private Kubeconfig() {}

  /** Writes a kubeconfig that authenticates with {@code client}'s certificate. */
  public static Path withCertificate(Path file, String server, Path ca, CertificatePair client)
      throws IOException {
    return write(
        file,
        server,
        ca,
        "client-certificate-data: "
            + base64(client.certificatePem())
            + "\n    client-key-data: "
            + base64(client.keyPem()));
  }

  /** Writes a kubeconfig that authenticates with a bearer {@code token}. */
  public static Path withToken(Path file, String server, Path ca, String token) throws IOException {
    return write(file, server, ca, "token: " + token);
  }

  private static Path write(Path file, String server, Path ca, String credentials)
      throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
          - name: vnpu-cluster
            cluster:
              server: %s
              certificate-authority-data: %s
        users:
          - name: user
            user:
              %s
        contexts:
          - name: vnpu-cluster
            context: {cluster: vnpu-cluster, user: user, namespace: default}
        current-context: vnpu-cluster
        """
            .formatted(server, base64(Files.readString(ca)), credentials.replace("\n", "\n  ")));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return file;
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }
}
