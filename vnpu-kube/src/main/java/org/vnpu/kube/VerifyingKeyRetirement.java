package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.MalformedPayloadException;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.KeyRetirement;

/**
 * Takes verifying keys out of the ConfigMap nodes verify with ({@link SigningKeys}): after a
 * rotation, each old key once no pod still running carries an allocation signed with it ({@link
 * KeyRetirement}); after a leak, a named key at once ({@code vnpu keys retire}). Nodes re-read the
 * ConfigMap when they meet a key ID they do not hold, and refuse what a removed key signed.
 */
public final class VerifyingKeyRetirement {

  private static final Logger LOG = LoggerFactory.getLogger(VerifyingKeyRetirement.class);
  private static final int ATTEMPTS = 5;

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final PayloadCodec codec;

  public VerifyingKeyRetirement(
      KubernetesClient client, String namespace, String name, PayloadCodec codec) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.codec = codec;
  }

  /** The key IDs nodes verify with now. */
  public Set<String> published() {
    ConfigMap keys = client.configMaps().inNamespace(namespace).withName(name).get();
    return keys == null || keys.getData() == null
        ? Set.of()
        : new TreeSet<>(keys.getData().keySet());
  }

  /**
   * The pods that have not ended and carry an allocation, by the key ID it names (whether or not
   * its signature verifies: a forged one names a key too, and keeps nothing alive but itself).
   */
  public Map<String, Set<String>> podsByKey(Collection<Pod> pods) {
    Map<String, Set<String>> byKey = new TreeMap<>();
    for (Pod pod : pods) {
      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
      Map<String, String> annotations = pod.getMetadata().getAnnotations();
      String value = annotations == null ? null : annotations.get(AnnotationKeys.ALLOCATION);
      if (value == null || "Succeeded".equals(phase) || "Failed".equals(phase)) {
        continue;
      }
      try {
        byKey
            .computeIfAbsent(codec.decodeAllocation(value).keyId(), key -> new TreeSet<>())
            .add(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
      } catch (MalformedPayloadException e) {
        // An allocation that does not decode is signed with no key.
      }
    }
    return byKey;
  }

  /** Retires every published key but {@code signing} that no pod of {@code pods} still needs. */
  public Set<String> retireUnused(Collection<Pod> pods, String signing) {
    Set<String> retired = KeyRetirement.retirable(published(), signing, podsByKey(pods).keySet());
    if (!retired.isEmpty()) {
      remove(retired);
      LOG.info(
          "retired verifying keys {} from ConfigMap {}/{}: no running pod's allocation is signed"
              + " with them",
          retired,
          namespace,
          name);
    }
    return retired;
  }

  /**
   * Removes {@code ids} from the ConfigMap, compared and set against the version read.
   *
   * @throws IllegalStateException when the ConfigMap kept changing under every attempt
   */
  public void remove(Set<String> ids) {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      ConfigMap keys = client.configMaps().inNamespace(namespace).withName(name).get();
      if (keys == null || keys.getData() == null) {
        return;
      }
      Map<String, String> data = new HashMap<>(keys.getData());
      if (!data.keySet().removeAll(ids)) {
        return;
      }
      try {
        client
            .configMaps()
            .inNamespace(namespace)
            .resource(new ConfigMapBuilder(keys).withData(data).build())
            .update();
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
