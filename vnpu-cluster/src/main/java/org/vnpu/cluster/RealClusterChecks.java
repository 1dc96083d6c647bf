package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.ResourceNames;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.sandbox.Overcommit;
import org.vnpu.sandbox.Sandbox;
import org.vnpu.sandbox.Scenario.Check;

/**
 * What only a real cluster shows, after the demo's scenario: the chart's admission policies as the
 * real API server evaluates them on a tenant's requests, a ResourceQuota on vNPU cores, Volcano's
 * gang scheduling and queue capability with vNPU pods, a scheduler replica killed during a burst,
 * and no request of any vNPU component refused by RBAC (the audit log).
 */
public final class RealClusterChecks {

  static final String TENANT_NAMESPACE = "team-a";
  private static final String TENANT = "tenant";
  private static final Duration SETTLE = Duration.ofSeconds(90);

  private final RealCluster cluster;
  private final KubernetesClient admin;
  private final Consumer<String> progress;
  private final List<Check> checks = new ArrayList<>();
  private final ClusterPods pods;

  public RealClusterChecks(RealCluster cluster, Consumer<String> progress) {
    this.cluster = cluster;
    this.admin = cluster.client();
    this.progress = progress;
    this.pods = new ClusterPods(admin, cluster.schedulerName());
  }

  /** Runs every check; each is a line of the report. */
  public List<Check> run() throws IOException, InterruptedException {
    progress.accept("[real 0/5] deleting the scenario's pods, so that the checks have the chips");
    clear();
    progress.accept("[real 1/5] a tenant's requests, as the real API server admits them");
    tenant();
    progress.accept("[real 2/5] a ResourceQuota on huawei.com/vnpu-cores");
    quota();
    if (cluster.driver() == Sandbox.Driver.VOLCANO) {
      progress.accept("[real 3/5] a Volcano gang of 4 shared-chip pods, and a queue's capability");
      checks.addAll(new VolcanoChecks(admin, pods, progress).run());
    } else {
      progress.accept("[real 3/5] (Volcano's gangs and queues: run with --scheduler volcano)");
    }
    progress.accept("[real 4/5] the scheduler's leader killed during a burst");
    failover();
    progress.accept("[real 5/5] every request of vNPU's components, in the API server's audit log");
    audit();
    return List.copyOf(checks);
  }

  /** Deletes every pod and ReplicaSet of the scenario's namespace and waits until they are gone. */
  private void clear() throws InterruptedException {
    admin.apps().replicaSets().inNamespace(ClusterPods.NAMESPACE).delete();
    admin.pods().inNamespace(ClusterPods.NAMESPACE).delete();
    ClusterPods.await(
        () -> admin.pods().inNamespace(ClusterPods.NAMESPACE).list().getItems().isEmpty(), SETTLE);
  }

  // ---- a tenant ----

  /**
   * A tenant with the usual rights on pods of its namespace (create, get, update, patch) tries to
   * write a vNPU allocation on its own pod, and to create a pod whose env names the chips Ascend
   * Docker Runtime would mount: the chart's policies refuse both, as the API server evaluates them.
   */
  private void tenant() throws IOException {
    pods.namespace(TENANT_NAMESPACE);
    grantTenantPods();
    try (KubernetesClient tenant =
        ControlPlane.client(
            new ServiceAccountTokens(cluster.plane(), admin)
                .kubeconfig(TENANT_NAMESPACE, TENANT))) {
      Pod own = pods.plainPod("own");
      tenant.pods().inNamespace(TENANT_NAMESPACE).resource(own).create();
      // A merge patch, as kubectl annotate sends it: no resourceVersion, so no conflict with
      // the scheduler's and the node's own writes to the pod.
      String forged =
          ClusterPods.refusal(
              () ->
                  tenant
                      .pods()
                      .inNamespace(TENANT_NAMESPACE)
                      .withName("own")
                      .patch(
                          PatchContext.of(PatchType.JSON_MERGE),
                          "{\"metadata\":{\"annotations\":{\""
                              + AnnotationKeys.ALLOCATION
                              + "\":\"{}\"}}}"));
      check(
          "the chart's policy refuses a tenant's write of a vNPU allocation on its own pod",
          forged,
          message -> message.contains("only the vNPU scheduler and device plugins may set"));
      Pod chooser =
          new PodBuilder(pods.plainPod("chooser"))
              .editSpec()
              .editFirstContainer()
              .addNewEnv()
              .withName("ASCEND_VISIBLE_DEVICES")
              .withValue("0-7")
              .endEnv()
              .endContainer()
              .endSpec()
              .build();
      String chosen =
          ClusterPods.refusal(
              () -> tenant.pods().inNamespace(TENANT_NAMESPACE).resource(chooser).create());
      check(
          "the chart's policy refuses a pod whose env names the chips Ascend Docker Runtime mounts",
          chosen,
          message -> message.contains("ASCEND_VISIBLE_DEVICES"));
      tenant.pods().inNamespace(TENANT_NAMESPACE).withName("own").delete();
    }
  }

  /** A Role on pods of the tenant's namespace, bound to the tenant's service account. */
  private void grantTenantPods() {
    admin
        .rbac()
        .roles()
        .inNamespace(TENANT_NAMESPACE)
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName(TENANT)
                .endMetadata()
                .addNewRule()
                .withApiGroups("")
                .withResources("pods")
                .withVerbs("create", "get", "list", "update", "patch", "delete")
                .endRule()
                .build())
        .serverSideApply();
    admin
        .rbac()
        .roleBindings()
        .inNamespace(TENANT_NAMESPACE)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName(TENANT)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", TENANT)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(TENANT)
                .withNamespace(TENANT_NAMESPACE)
                .endSubject()
                .build())
        .serverSideApply();
  }

  // ---- quota ----

  /** A quota of 50 AI Core percent in a namespace: a pod of 30 is admitted, a second refused. */
  private void quota() throws InterruptedException {
    String namespace = "quota";
    pods.namespace(namespace);
    admin
        .resourceQuotas()
        .inNamespace(namespace)
        .resource(
            new ResourceQuotaBuilder()
                .withNewMetadata()
                .withName("vnpu")
                .endMetadata()
                .withNewSpec()
                .addToHard("requests." + ResourceNames.VNPU_CORES, new Quantity("50"))
                .endSpec()
                .build())
        .serverSideApply();
    awaitQuotaStatus(namespace);
    admin.pods().inNamespace(namespace).resource(pods.shared("first", namespace, 30)).create();
    String second =
        ClusterPods.refusal(
            () ->
                admin
                    .pods()
                    .inNamespace(namespace)
                    .resource(pods.shared("second", namespace, 30))
                    .create());
    check(
        "a ResourceQuota on requests.huawei.com/vnpu-cores admits 30 of 50 and refuses 30 more",
        second,
        message ->
            message.contains("exceeded quota") && message.contains(ResourceNames.VNPU_CORES));
    // The namespace stays: deleting it while the scheduler still writes the pod's events would
    // have them refused (NamespaceLifecycle), which the audit check would count.
    admin.pods().inNamespace(namespace).withName("first").delete();
  }

  private void awaitQuotaStatus(String namespace) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (Instant.now().isBefore(deadline)) {
      var quota = admin.resourceQuotas().inNamespace(namespace).withName("vnpu").get();
      if (quota != null && quota.getStatus() != null && quota.getStatus().getHard() != null) {
        return;
      }
      Thread.sleep(200);
    }
  }

  // ---- failover ----

  /**
   * Twelve pods are created and the scheduler's leader is killed at once: the other replica takes
   * the Lease, and every pod runs, with no chip's AI Core or memory over-committed.
   */
  private void failover() throws InterruptedException {
    String before = cluster.schedulers().leader();
    List<String> names = new ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      String name = String.format("failover-%02d", i);
      names.add(name);
      pods.create(pods.shared(name, ClusterPods.NAMESPACE, 20 + 5 * (i % 3)));
    }
    cluster.schedulers().replicas().stream()
        .filter(replica -> replica.identity().equals(before))
        .forEach(replica -> replica.process().kill());
    boolean all =
        ClusterPods.await(() -> names.stream().allMatch(pods::running), Duration.ofSeconds(180));
    String after = cluster.schedulers().leader();
    List<String> overcommitted =
        Overcommit.of(
                admin.pods().inNamespace(ClusterPods.NAMESPACE).list().getItems(),
                ChipCatalog.builtIn())
            .overcommitted();
    String detail =
        "leader "
            + before
            + " killed, "
            + after
            + " leads; "
            + names.stream().filter(pods::running).count()
            + " of 12 running; over-committed chips: "
            + (overcommitted.isEmpty() ? "none" : String.join(", ", overcommitted));
    progress.accept("      " + detail);
    checks.add(
        new Check(
            "with the scheduler's leader killed during a burst, the other replica takes the Lease"
                + " and every pod runs, no chip over-committed",
            all && after != null && !after.equals(before) && overcommitted.isEmpty(),
            detail));
    names.forEach(pods::delete);
  }

  // ---- audit ----

  private void audit() throws IOException {
    checks.add(noRefusals(cluster));
  }

  /** No request of vNPU's components on {@code cluster} was refused with 403 (its audit log). */
  public static Check noRefusals(RealCluster cluster) throws IOException {
    List<String> refused = AuditLog.refusedRequests(cluster.plane().logs().resolve("audit.log"));
    return new Check(
        "no request of the scheduler, the node agents or the nodes was refused with 403",
        refused.isEmpty(),
        refused.isEmpty() ? "none" : String.join("; ", refused));
  }

  // ---- helpers ----

  private void check(String name, String detail, Predicate<String> holds) {
    progress.accept("      " + detail);
    checks.add(new Check(name, holds.test(detail), detail));
  }
}
