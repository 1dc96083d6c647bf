package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.codec.PayloadCodec;
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

  public RealClusterChecks(RealCluster cluster, Consumer<String> progress) {
    this.cluster = cluster;
    this.admin = cluster.client();
    this.progress = progress;
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
      gang();
      queue();
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
    admin.apps().replicaSets().inNamespace(NAMESPACE).delete();
    admin.pods().inNamespace(NAMESPACE).delete();
    await(() -> admin.pods().inNamespace(NAMESPACE).list().getItems().isEmpty(), SETTLE);
  }

  // ---- a tenant ----

  /**
   * A tenant with the usual rights on pods of its namespace (create, get, update, patch) tries to
   * write a vNPU allocation on its own pod, and to create a pod whose env names the chips Ascend
   * Docker Runtime would mount: the chart's policies refuse both, as the API server evaluates them.
   */
  private void tenant() throws IOException {
    namespace(TENANT_NAMESPACE);
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
    try (KubernetesClient tenant =
        ControlPlane.client(
            new ServiceAccountTokens(cluster.plane(), admin)
                .kubeconfig(TENANT_NAMESPACE, TENANT))) {
      Pod own = plainPod("own");
      tenant.pods().inNamespace(TENANT_NAMESPACE).resource(own).create();
      // A merge patch, as kubectl annotate sends it: no resourceVersion, so no conflict with
      // the scheduler's and the node's own writes to the pod.
      String forged =
          refusal(
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
          new PodBuilder(plainPod("chooser"))
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
          refusal(() -> tenant.pods().inNamespace(TENANT_NAMESPACE).resource(chooser).create());
      check(
          "the chart's policy refuses a pod whose env names the chips Ascend Docker Runtime mounts",
          chosen,
          message -> message.contains("ASCEND_VISIBLE_DEVICES"));
      tenant.pods().inNamespace(TENANT_NAMESPACE).withName("own").delete();
    }
  }

  // ---- quota ----

  /** A quota of 50 AI Core percent in a namespace: a pod of 30 is admitted, a second refused. */
  private void quota() throws InterruptedException {
    String namespace = "quota";
    namespace(namespace);
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
    admin.pods().inNamespace(namespace).resource(shared("first", namespace, 30)).create();
    String second =
        refusal(
            () ->
                admin
                    .pods()
                    .inNamespace(namespace)
                    .resource(shared("second", namespace, 30))
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

  // ---- Volcano ----

  /**
   * A PodGroup of minMember 4 and four identical shared-chip pods: with three of them Volcano binds
   * none (the gang is not whole); with the fourth it binds all four.
   */
  private void gang() throws InterruptedException {
    String group = "gang";
    admin
        .genericKubernetesResources("scheduling.volcano.sh/v1beta1", "PodGroup")
        .inNamespace(NAMESPACE)
        .resource(
            new GenericKubernetesResourceBuilder()
                .withApiVersion("scheduling.volcano.sh/v1beta1")
                .withKind("PodGroup")
                .withNewMetadata()
                .withName(group)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withAdditionalProperties(
                    Map.of("spec", Map.of("minMember", 4, "queue", "default")))
                .build())
        .create();
    List<String> names = List.of("gang-1", "gang-2", "gang-3", "gang-4");
    for (String name : names.subList(0, 3)) {
      create(grouped(name, group));
    }
    Thread.sleep(10_000);
    long early = names.subList(0, 3).stream().filter(this::bound).count();
    create(grouped(names.get(3), group));
    boolean all = await(() -> names.stream().allMatch(this::running), SETTLE);
    List<String> chips = names.stream().map(this::chipOf).toList();
    String detail =
        early
            + " of 3 bound before the fourth came; then "
            + names.stream().filter(this::running).count()
            + " of 4 running, on chips "
            + chips;
    progress.accept("      " + detail);
    checks.add(
        new Check(
            "Volcano places a PodGroup of minMember 4 shared-chip pods as one gang: none before"
                + " the fourth, then all four",
            early == 0 && all,
            detail));
    names.forEach(this::delete);
    admin
        .genericKubernetesResources("scheduling.volcano.sh/v1beta1", "PodGroup")
        .inNamespace(NAMESPACE)
        .withName(group)
        .delete();
  }

  /**
   * A Volcano Queue whose capability is 40 % of AI Core: a pod of 30 % runs; a second of 30 % waits
   * though a node has room, and runs once the first is gone.
   */
  private void queue() throws InterruptedException {
    String queue = "capped";
    admin
        .genericKubernetesResources("scheduling.volcano.sh/v1beta1", "Queue")
        .resource(
            new GenericKubernetesResourceBuilder()
                .withApiVersion("scheduling.volcano.sh/v1beta1")
                .withKind("Queue")
                .withNewMetadata()
                .withName(queue)
                .endMetadata()
                .withAdditionalProperties(
                    Map.of(
                        "spec",
                        Map.of(
                            "weight",
                            1,
                            "reclaimable",
                            false,
                            "capability",
                            Map.of(ResourceNames.VNPU_CORES, "40"))))
                .build())
        .create();
    create(queued("capped-1", queue));
    boolean first = await(() -> running("capped-1"), SETTLE);
    create(queued("capped-2", queue));
    Thread.sleep(15_000);
    boolean heldBack = !bound("capped-2");
    delete("capped-1");
    boolean after = await(() -> running("capped-2"), SETTLE);
    String detail =
        "capped-1 "
            + (first ? "ran" : "did not run")
            + "; capped-2 "
            + (heldBack ? "waited" : "was placed")
            + " while it ran, and "
            + (after ? "ran" : "did not run")
            + " once it was gone";
    progress.accept("      " + detail);
    checks.add(
        new Check(
            "a Volcano Queue whose capability names huawei.com/vnpu-cores holds back the pod past"
                + " it",
            first && heldBack && after,
            detail));
    delete("capped-2");
    admin
        .genericKubernetesResources("scheduling.volcano.sh/v1beta1", "Queue")
        .withName(queue)
        .delete();
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
      create(shared(name, NAMESPACE, 20 + 5 * (i % 3)));
    }
    cluster.schedulers().replicas().stream()
        .filter(replica -> replica.identity().equals(before))
        .forEach(replica -> replica.process().kill());
    boolean all = await(() -> names.stream().allMatch(this::running), Duration.ofSeconds(180));
    String after = cluster.schedulers().leader();
    List<String> overcommitted =
        Overcommit.of(admin.pods().inNamespace(NAMESPACE).list().getItems(), ChipCatalog.builtIn())
            .overcommitted();
    String detail =
        "leader "
            + before
            + " killed, "
            + after
            + " leads; "
            + names.stream().filter(this::running).count()
            + " of 12 running; over-committed chips: "
            + (overcommitted.isEmpty() ? "none" : String.join(", ", overcommitted));
    progress.accept("      " + detail);
    checks.add(
        new Check(
            "with the scheduler's leader killed during a burst, the other replica takes the Lease"
                + " and every pod runs, no chip over-committed",
            all && after != null && !after.equals(before) && overcommitted.isEmpty(),
            detail));
    names.forEach(this::delete);
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

  private static final String NAMESPACE = "default";

  private void create(Pod pod) {
    admin.pods().inNamespace(NAMESPACE).resource(pod).create();
  }

  private void delete(String name) {
    admin.pods().inNamespace(NAMESPACE).withName(name).delete();
  }

  private Pod get(String name) {
    return admin.pods().inNamespace(NAMESPACE).withName(name).get();
  }

  private boolean bound(String name) {
    Pod pod = get(name);
    return pod != null && pod.getSpec().getNodeName() != null;
  }

  private boolean running(String name) {
    Pod pod = get(name);
    return pod != null && pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
  }

  /** The die ID of the pod's first vNPU, from its signed allocation; "-" when it has none. */
  private String chipOf(String name) {
    Pod pod = get(name);
    String value =
        pod == null || pod.getMetadata().getAnnotations() == null
            ? null
            : pod.getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION);
    return value == null
        ? "-"
        : new PayloadCodec()
            .decodeAllocation(value)
            .allocation()
            .containers()
            .get(0)
            .vnpus()
            .get(0)
            .dieId();
  }

  private static boolean await(BooleanSupplier condition, Duration timeout)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(500);
    }
    return condition.getAsBoolean();
  }

  /** A shared-chip pod of a Volcano PodGroup. */
  private Pod grouped(String name, String group) {
    return new PodBuilder(shared(name, NAMESPACE, 20))
        .editMetadata()
        .addToAnnotations("scheduling.k8s.io/group-name", group)
        .endMetadata()
        .build();
  }

  /** A pod of 30 % in Volcano Queue {@code queue}. */
  private Pod queued(String name, String queue) {
    return new PodBuilder(shared(name, NAMESPACE, 30))
        .editMetadata()
        .addToAnnotations("scheduling.volcano.sh/queue-name", queue)
        .endMetadata()
        .build();
  }

  private void namespace(String name) {
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .serverSideApply();
  }

  /** The API server's message refusing {@code request}, or "admitted" when it was not refused. */
  private static String refusal(Runnable request) {
    try {
      request.run();
      return "admitted";
    } catch (KubernetesClientException e) {
      return e.getCode() + " " + e.getMessage();
    }
  }

  private void check(String name, String detail, Predicate<String> holds) {
    progress.accept("      " + detail);
    checks.add(new Check(name, holds.test(detail), detail));
  }

  private Pod plainPod(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withImage("vnpu.local/workload")
        .endContainer()
        .endSpec()
        .build();
  }

  /** A pod of one soft vNPU of {@code cores} percent and 4 GiB. */
  private Pod shared(String name, String namespace, int cores) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName(cluster.schedulerName())
        .addNewContainer()
        .withName("main")
        .withImage("vnpu.local/workload")
        .withNewResources()
        .withLimits(
            Map.of(
                ResourceNames.VNPU_NUMBER, new Quantity("1"),
                ResourceNames.VNPU_CORES, new Quantity(Integer.toString(cores)),
                ResourceNames.VNPU_MEMORY_GIB, new Quantity("4")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }
}
