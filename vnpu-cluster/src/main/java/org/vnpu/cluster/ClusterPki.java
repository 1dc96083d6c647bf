package org.vnpu.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.security.auth.x500.X500Principal;
import org.vnpu.kube.CertificatePair;
import org.vnpu.kube.CertificatePair.Use;

/**
 * The control plane's certificates, in {@code <directory>/pki}: one CA that signs the API server's
 * serving certificate and every client certificate (Kubernetes reads the user from a client
 * certificate's CN and its groups from O: {@code system:node:n1} in {@code system:nodes} is what
 * the Node authorizer and NodeRestriction know as node n1), and the key pair that signs
 * service-account tokens. Made once; a control plane started again over the same directory keeps
 * them, so kubeconfigs written before stay valid.
 */
public final class ClusterPki {

  /** The users the control plane's own components are, as kubeadm names them. */
  public static final String ADMIN = "kubernetes-admin";

  public static final String CONTROLLER_MANAGER = "system:kube-controller-manager";
  public static final String SCHEDULER = "system:kube-scheduler";

  private final Path directory;
  private final CertificatePair authority;

  private ClusterPki(Path directory, CertificatePair authority) {
    this.directory = directory;
    this.authority = authority;
  }

  /** The PKI in {@code directory}, made there first when it holds none. */
  public static ClusterPki in(Path directory) throws IOException {
    return in(directory, List.of());
  }

  /**
   * The PKI in {@code directory}, made there first when it holds none; the API server's certificate
   * also names {@code addresses} (issued again when it does not yet).
   */
  public static ClusterPki in(Path directory, List<String> addresses) throws IOException {
    ClusterPki pki = existingOrNew(directory);
    if (!addresses.isEmpty()) {
      pki.issueApiServer(addresses, Instant.now());
    }
    return pki;
  }

  private static ClusterPki existingOrNew(Path directory) throws IOException {
    Files.createDirectories(directory);
    Path cert = directory.resolve("ca.crt");
    Path key = directory.resolve("ca.key");
    if (Files.exists(cert) && Files.exists(key)) {
      try {
        return new ClusterPki(
            directory,
            CertificatePair.fromPem(Files.readString(cert), Files.readString(key), key.toString()));
      } catch (GeneralSecurityException | IllegalArgumentException e) {
        throw new IOException(
            directory + " holds no usable CA (" + e.getMessage() + "); remove it to start over", e);
      }
    }
    Instant now = Instant.now();
    ClusterPki pki = new ClusterPki(directory, CertificatePair.authority("vnpu-cluster-ca", now));
    pki.write("ca", pki.authority);
    pki.issueApiServer(List.of(), now);
    KeyPair serviceAccounts = CertificatePair.keyPair();
    pki.writeSecret(
        "sa.key", CertificatePair.pem("PRIVATE KEY", serviceAccounts.getPrivate().getEncoded()));
    Files.writeString(
        directory.resolve("sa.pub"),
        CertificatePair.pem("PUBLIC KEY", serviceAccounts.getPublic().getEncoded()));
    return pki;
  }

  /** The API server's serving certificate: loopback, the kubernetes Service, and {@code more}. */
  private void issueApiServer(List<String> more, Instant now) {
    List<String> names =
        new java.util.ArrayList<>(
            List.of(
                "127.0.0.1",
                "localhost",
                "10.96.0.1",
                "kubernetes",
                "kubernetes.default",
                "kubernetes.default.svc",
                "kubernetes.default.svc.cluster.local"));
    names.addAll(more);
    write("apiserver", authority.issue("kube-apiserver", Use.SERVER, names, now));
  }

  public Path caCertificate() {
    return directory.resolve("ca.crt");
  }

  public Path caKey() {
    return directory.resolve("ca.key");
  }

  public Path apiServerCertificate() {
    return directory.resolve("apiserver.crt");
  }

  public Path apiServerKey() {
    return directory.resolve("apiserver.key");
  }

  /** The private key service-account tokens are signed with. */
  public Path serviceAccountKey() {
    return directory.resolve("sa.key");
  }

  /** Its public half, which the API server verifies tokens with. */
  public Path serviceAccountPublicKey() {
    return directory.resolve("sa.pub");
  }

  /**
   * The serving certificate of a component on loopback ({@code <name>.crt}, {@code <name>.key}),
   * made once: kube-controller-manager and kube-scheduler serve their health checks with it.
   */
  public Path[] serving(String name) {
    Path cert = directory.resolve(name + ".crt");
    if (!Files.exists(cert)) {
      write(
          name,
          authority.issue(name, Use.SERVER, List.of("127.0.0.1", "localhost"), Instant.now()));
    }
    return new Path[] {cert, directory.resolve(name + ".key")};
  }

  /**
   * The API server's client certificate for the kubelets' API ({@code pods/log}, exec), in {@code
   * system:masters}, which the kubelets' webhook authorization allows: {@code
   * apiserver-kubelet-client.crt} and {@code .key}, made once.
   */
  public Path[] kubeletClient() {
    Path cert = directory.resolve("apiserver-kubelet-client.crt");
    if (!Files.exists(cert)) {
      write(
          "apiserver-kubelet-client",
          client("kube-apiserver-kubelet-client", List.of("system:masters")));
    }
    return new Path[] {cert, directory.resolve("apiserver-kubelet-client.key")};
  }

  /** TLS that trusts servers of this CA, presenting no certificate. */
  public SSLContext trust() {
    return CertificatePair.trusting(authority.certificate());
  }

  /** A client certificate for {@code user} in {@code groups}, issued now. */
  public CertificatePair client(String user, List<String> groups) {
    StringBuilder subject = new StringBuilder("CN=").append(user);
    for (String group : groups) {
      subject.append(", O=").append(group);
    }
    return authority.issue(
        new X500Principal(subject.toString()), Use.CLIENT, List.of(), Instant.now());
  }

  /** The kubelet of node {@code name}: {@code system:node:<name>} in {@code system:nodes}. */
  public CertificatePair node(String name) {
    return client("system:node:" + name, List.of("system:nodes"));
  }

  private void write(String name, CertificatePair pair) {
    try {
      Files.writeString(directory.resolve(name + ".crt"), pair.certificatePem());
      writeSecret(name + ".key", pair.keyPem());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void writeSecret(String name, String text) throws IOException {
    Path file = directory.resolve(name);
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
  }
}
