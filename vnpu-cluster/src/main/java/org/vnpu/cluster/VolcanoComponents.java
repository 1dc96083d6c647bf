package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Volcano on the control plane: its CRDs from the module it was built from, its controller manager
 * (which makes PodGroups for pods that name Volcano) and its scheduler with a given {@code
 * volcano-scheduler.conf}, each authenticated with a token of the service account Volcano's chart
 * gives it in {@code volcano-system}. Those accounts are bound to {@code cluster-admin}: Volcano's
 * own ClusterRoles come with its Helm chart, which is not part of the Go module; vNPU's admission
 * policy knows the scheduler's account as a binder ({@code admission.binders}).
 */
public final class VolcanoComponents {

  private static final Logger LOG = LoggerFactory.getLogger(VolcanoComponents.class);
  public static final String NAMESPACE = "volcano-system";
  public static final String SCHEDULER_ACCOUNT = "volcano-scheduler";
  public static final String CONTROLLERS_ACCOUNT = "volcano-controllers";
  private static final Duration READY = Duration.ofSeconds(90);

  /**
   * {@link #start}'s share of nodes to find that leaves it to Volcano: half the nodes less one
   * percent per 125 nodes (at least 5 % and 100 nodes), every node up to 100 ({@code
   * CalculateNumOfFeasibleNodesToFind}, pkg/scheduler/util/scheduler_helper.go, v1.14.1).
   */
  public static final int VOLCANOS_SHARE_OF_NODES = 0;

  private VolcanoComponents() {}

  /**
   * Checks {@code percentage} as Volcano's {@code --percentage-nodes-to-find}: {@link
   * #VOLCANOS_SHARE_OF_NODES}, or a percentage of the nodes.
   *
   * @throws IllegalArgumentException naming {@code field} when it is neither
   */
  public static void checkShareOfNodes(String field, int percentage) {
    if (percentage < 0 || percentage > 100) {
      throw new IllegalArgumentException(
          field
              + " is "
              + percentage
              + "; as Volcano's --percentage-nodes-to-find it must be a percentage of the"
              + " nodes, 1 to 100, or 0 for Volcano's own"
              + " (50 less one per 125 nodes, at least 5 % and 100 nodes)");
    }
  }

  /**
   * {@link #start(ControlPlane, UpstreamBinaries, KubernetesClient, Path, int)}, Volcano's share.
   */
  public static void start(
      ControlPlane plane, UpstreamBinaries binaries, KubernetesClient admin, Path schedulerConf)
      throws IOException, InterruptedException {
    start(plane, binaries, admin, schedulerConf, VOLCANOS_SHARE_OF_NODES);
  }

  /**
   * Installs the CRDs and starts the controller manager and the scheduler.
   *
   * @param shareOfNodes Volcano's {@code --percentage-nodes-to-find}: for each task, its allocate
   *     action asks the predicates of nodes in turn until this percentage of them pass, then scores
   *     those; with vNPU's extender each node asked is one predicate call (DESIGN.md's Volcano
   *     plugin). {@link #VOLCANOS_SHARE_OF_NODES} leaves it to Volcano; callers check it with
   *     {@link #checkShareOfNodes}.
   */
  public static void start(
      ControlPlane plane,
      UpstreamBinaries binaries,
      KubernetesClient admin,
      Path schedulerConf,
      int shareOfNodes)
      throws IOException, InterruptedException {
    installCrds(binaries, admin);
    LOG.info("Volcano's CRDs are established");
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .serverSideApply();
    ServiceAccountTokens tokens = new ServiceAccountTokens(plane, admin);
    Path controllers = tokens.kubeconfig(NAMESPACE, CONTROLLERS_ACCOUNT);
    Path scheduler = tokens.kubeconfig(NAMESPACE, SCHEDULER_ACCOUNT);
    bindClusterAdmin(admin);
    int controllersHealth = Probes.freePort();
    plane
        .start(
            "vc-controller-manager",
            List.of(
                binaries.binary("vc-controller-manager").toString(),
                "--kubeconfig=" + controllers,
                "--leader-elect=false",
                "--enable-healthz",
                "--healthz-address=127.0.0.1:" + controllersHealth,
                "--listen-address=127.0.0.1:" + Probes.freePort(),
                "--v=2"))
        .awaitReady(Probes.ok("http://127.0.0.1:" + controllersHealth + "/healthz", null), READY);
    int schedulerHealth = Probes.freePort();
    plane
        .start(
            "vc-scheduler",
            List.of(
                binaries.binary("vc-scheduler").toString(),
                "--kubeconfig=" + scheduler,
                "--scheduler-conf=" + schedulerConf,
                "--leader-elect=false",
                "--enable-healthz",
                "--healthz-address=127.0.0.1:" + schedulerHealth,
                "--listen-address=127.0.0.1:" + Probes.freePort(),
                "--cache-dumper=false",
                "--percentage-nodes-to-find=" + shareOfNodes,
                "--v=3"))
        .awaitReady(Probes.ok("http://127.0.0.1:" + schedulerHealth + "/healthz", null), READY);
  }

  /** Applies Volcano's CRDs, then waits until the API server serves each. */
  private static void installCrds(UpstreamBinaries binaries, KubernetesClient admin)
      throws IOException {
    for (Path file : binaries.volcanoCrds()) {
      try (InputStream in = Files.newInputStream(file)) {
        for (HasMetadata object : admin.load(in).items()) {
          admin.resource(object).serverSideApply();
        }
      }
    }
    for (Path file : binaries.volcanoCrds()) {
      try (InputStream in = Files.newInputStream(file)) {
        for (HasMetadata object : admin.load(in).items()) {
          admin
              .resources(CustomResourceDefinition.class)
              .withName(object.getMetadata().getName())
              .waitUntilCondition(VolcanoComponents::established, 60, TimeUnit.SECONDS);
        }
      }
    }
  }

  /**
   * Binds Volcano's two service accounts to cluster-admin: this test cluster does not narrow them.
   */
  private static void bindClusterAdmin(KubernetesClient admin) {
    for (String account : List.of(CONTROLLERS_ACCOUNT, SCHEDULER_ACCOUNT)) {
      admin
          .rbac()
          .clusterRoleBindings()
          .resource(
              new ClusterRoleBindingBuilder()
                  .withNewMetadata()
                  .withName(account)
                  .endMetadata()
                  .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "cluster-admin")
                  .addNewSubject()
                  .withKind("ServiceAccount")
                  .withName(account)
                  .withNamespace(NAMESPACE)
                  .endSubject()
                  .build())
          .serverSideApply();
    }
  }

  private static boolean established(CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
