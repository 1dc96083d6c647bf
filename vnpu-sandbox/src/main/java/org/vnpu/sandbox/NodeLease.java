package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's heartbeat: a Lease named after the node in {@code kube-node-lease}, renewed every
 * ten seconds ({@code pkg/kubelet/nodelease}, {@code nodeLeaseDurationSeconds} 40), and the node's
 * {@code Ready} condition. A real kube-controller-manager's node lifecycle controller marks a node
 * whose heartbeat stops NotReady and taints it, so that no scheduler places pods there; the
 * embedded sandbox's API server ignores both.
 */
final class NodeLease {

  private static final Logger LOG = LoggerFactory.getLogger(NodeLease.class);
  static final String NAMESPACE = "kube-node-lease";
  static final Duration RENEW = Duration.ofSeconds(10);
  private static final int DURATION_SECONDS = 40;

  private final KubernetesClient client;
  private final String node;

  NodeLease(KubernetesClient client, String node) {
    this.client = client;
    this.node = node;
  }

  /** Renews the lease, creating it at first; a failure is logged and tried again next time. */
  void renew() {
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    try {
      Lease lease = client.leases().inNamespace(NAMESPACE).withName(node).get();
      if (lease == null) {
        client
            .leases()
            .inNamespace(NAMESPACE)
            .resource(
                new LeaseBuilder()
                    .withNewMetadata()
                    .withName(node)
                    .withNamespace(NAMESPACE)
                    .endMetadata()
                    .withNewSpec()
                    .withHolderIdentity(node)
                    .withLeaseDurationSeconds(DURATION_SECONDS)
                    .withRenewTime(now)
                    .endSpec()
                    .build())
            .create();
      } else {
        lease.getSpec().setRenewTime(now);
        client.leases().inNamespace(NAMESPACE).resource(lease).update();
      }
    } catch (KubernetesClientException e) {
      LOG.warn("node {}: cannot renew its lease: {}", node, e.getMessage());
    }
  }

  /** Sets the node's {@code Ready} condition in {@code status}, as the kubelet reports it. */
  static void ready(NodeStatus status) {
    String now = Instant.now().toString();
    List<NodeCondition> conditions = new ArrayList<>();
    if (status.getConditions() != null) {
      status.getConditions().stream()
          .filter(condition -> !"Ready".equals(condition.getType()))
          .forEach(conditions::add);
    }
    conditions.add(
        new NodeConditionBuilder()
            .withType("Ready")
            .withStatus("True")
            .withReason("KubeletReady")
            .withMessage("kubelet is posting ready status")
            .withLastHeartbeatTime(now)
            .withLastTransitionTime(now)
            .build());
    status.setConditions(conditions);
  }
}
