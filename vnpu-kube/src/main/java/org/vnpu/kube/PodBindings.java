package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/**
 * Binds a pod to a node as a scheduler does: a {@code Binding} posted to the pod's {@code binding}
 * subresource, carrying the pod's UID so that a pod deleted and made again under its name is not
 * bound in its place.
 */
public final class PodBindings {

  private PodBindings() {}

  /**
   * Binds the pod {@code namespace/name} of {@code uid} to {@code node}, with {@code annotations}
   * that the API server merges onto the pod's (none from kube-scheduler's binder, the pod's own
   * from Volcano's); a KubernetesClientException when the API server refuses (the pod is gone, has
   * another UID or is bound already).
   */
  public static void bind(
      KubernetesClient client,
      String namespace,
      String name,
      String uid,
      String node,
      Map<String, String> annotations) {
    client
        .bindings()
        .inNamespace(namespace)
        .resource(
            new BindingBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .withUid(uid)
                .withAnnotations(annotations)
                .endMetadata()
                .withNewTarget()
                .withKind("Node")
                .withApiVersion("v1")
                .withName(node)
                .endTarget()
                .build())
        .create();
  }
}
