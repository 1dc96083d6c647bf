package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.HashMap;
import java.util.Map;

/**
 * Changes annotations of nodes and pods. A {@code null} value removes the key. Plain changes are
 * sent as JSON patches (read, diff, patch): fabric8's CRUD mock ignores the {@code null} of a merge
 * patch, a real API server does not, and a JSON patch means the same to both.
 */
public final class AnnotationPatches {

  private final KubernetesClient client;

  public AnnotationPatches(KubernetesClient client) {
    this.client = client;
  }

  /** Sets (or, for null values, removes) annotations of the node {@code name}. */
  public void node(String name, Map<String, String> changes) {
    client.nodes().withName(name).edit(node -> changed(node, changes));
  }

  /** Sets (or, for null values, removes) annotations of a pod. */
  public void pod(String namespace, String name, Map<String, String> changes) {
    client.pods().inNamespace(namespace).withName(name).edit(pod -> changed(pod, changes));
  }

  /**
   * Changes {@code node} only if nobody changed it since it was read (the update carries its
   * resource version, and the API server refuses a stale one).
   *
   * @return false when the node changed meanwhile; read it again and decide again
   */
  public boolean nodeIfUnchanged(Node node, Map<String, String> changes) {
    Node copy = changed(new NodeBuilder(node).build(), changes);
    try {
      client.nodes().resource(copy).update();
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return false;
      }
      throw e;
    }
  }

  private static <T extends HasMetadata> T changed(T object, Map<String, String> changes) {
    ObjectMeta metadata = object.getMetadata();
    Map<String, String> annotations =
        metadata.getAnnotations() == null
            ? new HashMap<>()
            : new HashMap<>(metadata.getAnnotations());
    changes.forEach(
        (key, value) -> {
          if (value == null) {
            annotations.remove(key);
          } else {
            annotations.put(key, value);
          }
        });
    metadata.setAnnotations(annotations);
    return object;
  }
}
