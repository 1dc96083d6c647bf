package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.signing.SigningKey;

/**
 * Where the scheduler's signing key lives: its private key in a Secret only the scheduler reads,
 * its public key in a ConfigMap every node verifies with. Neither is rendered by the chart, so no
 * {@code helm template}, Argo CD sync or upgrade can replace a key: the first scheduler replica to
 * start makes the key and stores it; every later one reads it. Rotation: delete the Secret (or put
 * a new key in it) and restart the schedulers; the new public key joins the ConfigMap beside the
 * old ones, so allocations signed before still verify until their pods end (ADR 0011).
 */
public final class SigningKeys {

  private static final Logger LOG = LoggerFactory.getLogger(SigningKeys.class);

  /** The Secret's entries: the private key (PKCS #8) and its public half. */
  public static final String PRIVATE_KEY = "ed25519.pkcs8";

  public static final String PUBLIC_KEY = "ed25519.pub";

  private static final int ATTEMPTS = 5;

  private SigningKeys() {}

  /**
   * The key in Secret {@code secret} of {@code namespace}, made and stored there if there is none,
   * with its public key added to ConfigMap {@code keys} (created if absent; other keys stay).
   *
   * @throws IllegalStateException when the Secret holds something that is not such a key
   */
  public static SigningKey bootstrap(
      KubernetesClient client, String namespace, String secret, String keys) {
    SigningKey key = stored(client, namespace, secret);
    publish(client, namespace, keys, key);
    return key;
  }

  private static SigningKey stored(KubernetesClient client, String namespace, String name) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      Secret existing = client.secrets().inNamespace(namespace).withName(name).get();
      if (existing != null) {
        return decode(namespace, name, existing);
      }
      SigningKey made = SigningKey.generate();
      Secret secret =
          new SecretBuilder()
              .withNewMetadata()
              .withName(name)
              .withNamespace(namespace)
              .endMetadata()
              .withType("Opaque")
              .addToData(PRIVATE_KEY, Base64.getEncoder().encodeToString(made.pkcs8()))
              .addToData(
                  PUBLIC_KEY,
                  Base64.getEncoder().encodeToString(made.verifying().encoded().getBytes()))
              .build();
      try {
        client.secrets().inNamespace(namespace).resource(secret).create();
        LOG.info(
            "made signing key {} and stored it in Secret {}/{}",
            made.verifying().id(),
            namespace,
            name);
        return made;
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
          throw e;
        }
        // Another replica stored its key first: read that one.
      }
    }
    throw new IllegalStateException("Secret " + namespace + "/" + name + " kept changing");
  }

  private static SigningKey decode(String namespace, String name, Secret secret) {
    Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
    try {
      byte[] pkcs8 = Base64.getDecoder().decode(data.getOrDefault(PRIVATE_KEY, ""));
      String publicKey = new String(Base64.getDecoder().decode(data.getOrDefault(PUBLIC_KEY, "")));
      SigningKey key = SigningKey.decode(pkcs8, publicKey);
      LOG.info("signing with key {} from Secret {}/{}", key.verifying().id(), namespace, name);
      return key;
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "Secret "
              + namespace
              + "/"
              + name
              + " does not hold an Ed25519 key under "
              + PRIVATE_KEY
              + " and "
              + PUBLIC_KEY
              + " ("
              + e.getMessage()
              + "); delete it and a new key is made",
          e);
    }
  }

  private static void publish(
      KubernetesClient client, String namespace, String name, SigningKey key) {
    String id = key.verifying().id();
    String encoded = key.verifying().encoded();
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      ConfigMap existing = client.configMaps().inNamespace(namespace).withName(name).get();
      try {
        if (existing == null) {
          client
              .configMaps()
              .inNamespace(namespace)
              .resource(
                  new ConfigMapBuilder()
                      .withNewMetadata()
                      .withName(name)
                      .withNamespace(namespace)
                      .endMetadata()
                      .addToData(id, encoded)
                      .build())
              .create();
        } else if (!encoded.equals(
            existing.getData() == null ? null : existing.getData().get(id))) {
          Map<String, String> data =
              existing.getData() == null ? new HashMap<>() : new HashMap<>(existing.getData());
          data.put(id, encoded);
          ConfigMap updated = new ConfigMapBuilder(existing).withData(data).build();
          client.configMaps().inNamespace(namespace).resource(updated).update();
        }
        LOG.info("public key {} is in ConfigMap {}/{}", id, namespace, name);
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
          throw e;
        }
      }
    }
    throw new IllegalStateException("ConfigMap " + namespace + "/" + name + " kept changing");
  }
}
