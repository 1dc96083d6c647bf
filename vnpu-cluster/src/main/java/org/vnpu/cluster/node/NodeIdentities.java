package org.vnpu.cluster.node;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.cluster.ControlPlane;
import org.vnpu.cluster.ServiceAccountTokens;
import org.vnpu.kube.AnnotationPatches;
import org.vnpu.kube.NodeLocks;

/**
 * What the node's identities may do, as the real API server decides: the kubelet's ({@code
 * system:node:<node>}) under the Node authorizer and NodeRestriction, and the device plugin's (its
 * service account, with a token bound to its pod, so the API server names its node) under the
 * chart's admission policies. The other node is a Node object with no kubelet, a pod bound to it,
 * and its lock Lease.
 */
final class NodeIdentities {

  private static final String OTHER_NODE = "npu-node-9";
  private static final String OTHER_POD = "elsewhere";
  private static final String SECRET = "not-for-nodes";
  private static final String RESTRICTED_LABEL = "node-restriction.kubernetes.io/vnpu";

  private final KubernetesClient admin;
  private final ControlPlane plane;
  private final RealNode node;
  private final ChartPods chart;
  private final Checks checks;

  NodeIdentities(
      KubernetesClient admin, ControlPlane plane, RealNode node, ChartPods chart, Checks checks) {
    this.admin = admin;
    this.plane = plane;
    this.node = node;
    this.chart = chart;
    this.checks = checks;
  }

  void run() throws IOException {
    admin
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(OTHER_NODE).endMetadata().build())
        .create();
    Pod elsewhere =
        admin
            .pods()
            .inNamespace(NodePods.NAMESPACE)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName(OTHER_POD)
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(OTHER_NODE)
                    .addNewContainer()
                    .withName("main")
                    .withImage(NodeImages.WORKLOAD)
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    admin
        .secrets()
        .inNamespace(NodePods.NAMESPACE)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(SECRET)
                .endMetadata()
                .withStringData(Map.of("key", "value"))
                .build())
        .create();
    try {
      kubelet();
      devicePlugin(elsewhere);
    } finally {
      admin.pods().inNamespace(NodePods.NAMESPACE).withName(OTHER_POD).withGracePeriod(0).delete();
      admin.secrets().inNamespace(NodePods.NAMESPACE).withName(SECRET).delete();
      admin.nodes().withName(OTHER_NODE).delete();
    }
  }

  private void kubelet() throws IOException {
    try (KubernetesClient kubelet = ControlPlane.client(node.kubelet().kubeconfig())) {
      checks.check(
          kubelet.nodes().withName(node.name()).get() != null,
          "the kubelet's identity, system:node:" + node.name() + ", reads its own Node");
      String other =
          refusal(
              () ->
                  kubelet
                      .nodes()
                      .withName(OTHER_NODE)
                      .edit(
                          n ->
                              new NodeBuilder(n)
                                  .editMetadata()
                                  .addToLabels("x", "y")
                                  .endMetadata()
                                  .build()));
      checks.check(
          other.startsWith("403"), "the Node authorizer refuses it another Node: " + other);
      String restricted =
          refusal(
              () ->
                  kubelet
                      .nodes()
                      .withName(node.name())
                      .edit(
                          n ->
                              new NodeBuilder(n)
                                  .editMetadata()
                                  .addToLabels(RESTRICTED_LABEL, "true")
                                  .endMetadata()
                                  .build()));
      checks.check(
          restricted.startsWith("403"),
          "NodeRestriction refuses it a node-restriction.kubernetes.io/ label on its own Node: "
              + restricted);
      String secret =
          refusal(() -> kubelet.secrets().inNamespace(NodePods.NAMESPACE).withName(SECRET).get());
      checks.check(
          secret.startsWith("403"),
          "the Node authorizer refuses it a Secret no pod of its node uses: " + secret);
    }
  }

  private void devicePlugin(Pod elsewhere) throws IOException {
    Pod plugin = chart.pod("device-plugin");
    try (KubernetesClient agent =
        ControlPlane.client(new ServiceAccountTokens(plane, admin).kubeconfigOf(plugin))) {
      String refused =
          refusal(
              () ->
                  agent
                      .pods()
                      .inNamespace(NodePods.NAMESPACE)
                      .withName(elsewhere.getMetadata().getName())
                      .edit(
                          pod ->
                              new PodBuilder(pod)
                                  .editMetadata()
                                  .addToAnnotations(AnnotationKeys.BIND_PHASE, "allocating")
                                  .endMetadata()
                                  .build()));
      checks.check(
          refused.startsWith("403") && refused.contains("may change only pods bound to its node"),
          "the device plugin's identity, its token bound to its pod on "
              + node.name()
              + ", may not set vNPU annotations on a pod of "
              + OTHER_NODE
              + ": "
              + refused);
      lockLease(agent, elsewhere);
    }
  }

  /**
   * The other node's lock Lease takes a lock entry neither from this node's device plugin nor from
   * anyone but the scheduler and the device plugins, cluster-admin included: the chart's {@code
   * node-locks} policy, which RBAC does not bypass.
   */
  private void lockLease(KubernetesClient agent, Pod elsewhere) {
    admin
        .resources(Lease.class)
        .inNamespace(NodeLocks.NAMESPACE)
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName(OTHER_NODE)
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build())
        .create();
    String entry = AnnotationKeys.nodeLock(elsewhere.getMetadata().getUid());
    try {
      String byPlugin = refusal(() -> addToLease(agent, entry));
      checks.check(
          byPlugin.startsWith("403")
              && byPlugin.contains("may change only the lock Lease of its own node"),
          "the device plugin's identity may not write a lock entry on the Lease of "
              + OTHER_NODE
              + ": "
              + byPlugin);
      String byAdmin = refusal(() -> addToLease(admin, entry));
      checks.check(
          byAdmin.startsWith("403")
              && byAdmin.contains("only the vNPU scheduler and device plugins may set"),
          "nor may cluster-admin: " + byAdmin);
      String stale = refusal(() -> removeIfStill(agent, AnnotationKeys.nodeLock("gone"), "{}"));
      checks.check(
          stale.startsWith("422"),
          "a key-scoped change whose tested entry is not as read is answered 422 (the sandbox's"
              + " API server answers the same): "
              + stale);
    } finally {
      admin.resources(Lease.class).inNamespace(NodeLocks.NAMESPACE).withName(OTHER_NODE).delete();
    }
  }

  /** Removes {@code key} from the other node's Lease only while it holds {@code value}. */
  private static void removeIfStill(KubernetesClient client, String key, String value) {
    Map<String, String> removal = new HashMap<>();
    removal.put(key, null);
    client
        .resources(Lease.class)
        .inNamespace(NodeLocks.NAMESPACE)
        .withName(OTHER_NODE)
        .patch(
            PatchContext.of(PatchType.JSON),
            AnnotationPatches.keysUnchanged(Map.of(key, value), removal));
  }

  private static void addToLease(KubernetesClient client, String key) {
    client
        .resources(Lease.class)
        .inNamespace(NodeLocks.NAMESPACE)
        .withName(OTHER_NODE)
        .edit(
            lease ->
                new LeaseBuilder(lease)
                    .editMetadata()
                    .addToAnnotations(key, "{}")
                    .endMetadata()
                    .build());
  }

  /** "403: reason" when {@code request} is refused, "allowed" when it is not. */
  private static String refusal(Runnable request) {
    try {
      request.run();
      return "allowed";
    } catch (KubernetesClientException e) {
      String message = e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage();
      return e.getCode() + ": " + message;
    }
  }
}
