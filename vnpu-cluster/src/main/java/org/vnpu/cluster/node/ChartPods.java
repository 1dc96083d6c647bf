package org.vnpu.cluster.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Optional;
import org.vnpu.cluster.VnpuRelease;

/** The chart's workloads on the real node: waiting for them, and finding their pods. */
final class ChartPods {

  private static final Duration READY = Duration.ofMinutes(3);

  private final KubernetesClient admin;
  private final Checks checks;

  ChartPods(KubernetesClient admin, Checks checks) {
    this.admin = admin;
    this.checks = checks;
  }

  void awaitDaemonSet(String name) throws InterruptedException {
    checks.await(
        "DaemonSet " + name + " has every pod ready",
        READY,
        () ->
            daemonSet(name)
                .map(DaemonSet::getStatus)
                .filter(status -> status.getDesiredNumberScheduled() != null)
                .filter(status -> status.getDesiredNumberScheduled() > 0)
                .filter(
                    status -> status.getDesiredNumberScheduled().equals(status.getNumberReady()))
                .isPresent());
    checks.check(true, "DaemonSet " + name + " runs on the real node, ready");
  }

  void awaitDeployment(String name) throws InterruptedException {
    checks.await(
        "Deployment " + name + " is available",
        READY,
        () -> {
          Deployment deployment =
              admin.apps().deployments().inNamespace(VnpuRelease.NAMESPACE).withName(name).get();
          return deployment != null
              && deployment.getStatus() != null
              && deployment.getStatus().getAvailableReplicas() != null
              && deployment.getStatus().getAvailableReplicas() > 0;
        });
    checks.check(true, "Deployment " + name + " is available");
  }

  /** The release's DaemonSet {@code name} with a status, if there is one. */
  Optional<DaemonSet> daemonSet(String name) {
    return Optional.ofNullable(
            admin.apps().daemonSets().inNamespace(VnpuRelease.NAMESPACE).withName(name).get())
        .filter(set -> set.getStatus() != null);
  }

  /** The pod of the release's workload {@code component} (e.g. {@code device-plugin}). */
  Pod pod(String component) {
    return admin.pods().inNamespace(VnpuRelease.NAMESPACE).list().getItems().stream()
        .filter(p -> p.getMetadata().getName().startsWith(VnpuRelease.NAME + "-" + component))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("the " + component + "'s pod is gone"));
  }
}
