package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One node's pods, listed once by the {@code spec.nodeName} field selector, looked up by namespace
 * and name. A pod the list does not show is read on its own: a server that answers the field
 * selector wrongly (fabric8's mock answers none) then costs reads, never a pod taken for gone.
 */
public final class NodePods {

  private final KubernetesClient client;
  private final Map<String, Pod> listed = new HashMap<>();

  private NodePods(KubernetesClient client) {
    this.client = client;
  }

  /** The pods bound to {@code node} now. */
  public static NodePods of(KubernetesClient client, String node) {
    NodePods pods = new NodePods(client);
    client
        .pods()
        .inAnyNamespace()
        .withField("spec.nodeName", node)
        .list()
        .getItems()
        .forEach(
            pod ->
                pods.listed.put(
                    key(pod.getMetadata().getNamespace(), pod.getMetadata().getName()), pod));
    return pods;
  }

  /** The pod {@code namespace/name}, from the list or read on its own; empty when it is gone. */
  public Optional<Pod> get(String namespace, String name) {
    Pod pod = listed.get(key(namespace, name));
    return Optional.ofNullable(
        pod != null ? pod : client.pods().inNamespace(namespace).withName(name).get());
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }
}
