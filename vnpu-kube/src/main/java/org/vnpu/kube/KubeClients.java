package org.vnpu.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/**
 * Kubernetes clients as kubectl makes them. fabric8 reads a kubeconfig's client key as RSA unless
 * told otherwise, so a kubeconfig with an EC key in PKCS#8 form ({@code BEGIN PRIVATE KEY}), which
 * kubectl reads, failed with "Invalid DER"; here the key's algorithm is read from the key.
 */
public final class KubeClients {

  private KubeClients() {}

  /**
   * A client configured as fabric8 (and kubectl) find it: in a pod its account, else kubeconfig.
   */
  public static KubernetesClient fromEnvironment() {
    return build(Config.autoConfigure(null));
  }

  /** A client of {@code kubeconfig}'s {@code context} (null: the file's current context). */
  public static KubernetesClient fromKubeconfig(Path kubeconfig, String context) {
    return build(Config.fromKubeconfig(context, kubeconfig.toFile()));
  }

  /**
   * A client of {@code config}, its client key's algorithm set from the key (fabric8's default,
   * RSA, stays where the key cannot tell).
   */
  public static KubernetesClient build(Config config) {
    String algorithm = keyAlgorithm(clientKeyPem(config));
    if (algorithm != null) {
      config.setClientKeyAlgo(algorithm);
    }
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /**
   * The algorithm of a PEM private key: from its header for PKCS#1 and SEC 1 forms, by parsing for
   * PKCS#8; null when there is no key or it cannot be told (fabric8 then reports the key itself).
   */
  static String keyAlgorithm(String pem) {
    if (pem == null) {
      return null;
    }
    if (pem.contains("BEGIN EC PRIVATE KEY")) {
      return "EC";
    }
    if (pem.contains("BEGIN RSA PRIVATE KEY")) {
      return "RSA";
    }
    int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
    int end = pem.indexOf("-----END PRIVATE KEY-----");
    if (begin < 0 || end < begin) {
      return null;
    }
    byte[] der;
    try {
      der =
          Base64.getMimeDecoder()
              .decode(pem.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end));
    } catch (IllegalArgumentException e) {
      return null;
    }
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
      try {
        KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        return algorithm;
      } catch (GeneralSecurityException e) {
        // not this algorithm
      }
    }
    return null;
  }

  private static String clientKeyPem(Config config) {
    if (config.getClientKeyData() != null && !config.getClientKeyData().isEmpty()) {
      try {
        return new String(
            Base64.getMimeDecoder().decode(config.getClientKeyData()), StandardCharsets.US_ASCII);
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    if (config.getClientKeyFile() != null) {
      try {
        return Files.readString(Path.of(config.getClientKeyFile()), StandardCharsets.US_ASCII);
      } catch (IOException | RuntimeException e) {
        return null; // fabric8 reports the unreadable file
      }
    }
    return null;
  }
}
