package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/** The rebalancer's {@link EvictionPort} on the API server: a pod list, and the Eviction API. */
final class KubeEvictions implements EvictionPort {

  private final KubernetesClient client;

  KubeEvictions(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public List<Pod> pods() {
    return client.pods().inAnyNamespace().list().getItems();
  }

  @Override
  public boolean evict(String namespace, String name) {
    return client.pods().inNamespace(namespace).withName(name).evict();
  }
}
