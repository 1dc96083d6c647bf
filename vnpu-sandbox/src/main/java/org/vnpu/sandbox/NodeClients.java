package org.vnpu.sandbox;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The identities a simulated node's parts talk to the API server with. In the embedded sandbox they
 * share one client; on a real control plane the kubelet is {@code system:node:<name>} (a client
 * certificate, so the Node authorizer and NodeRestriction apply) and the node agents are their
 * chart ServiceAccounts (tokens, so the chart's RBAC applies).
 */
public record NodeClients(
    KubernetesClient kubelet, KubernetesClient devicePlugin, KubernetesClient exporter) {

  /** One client for every part, as the embedded sandbox runs them. */
  public static NodeClients shared(KubernetesClient client) {
    return new NodeClients(client, client, client);
  }
}
