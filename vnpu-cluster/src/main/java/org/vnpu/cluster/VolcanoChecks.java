package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.vnpu.api.ResourceNames;
import org.vnpu.sandbox.Scenario.Check;

/**
 * Volcano's own scheduling with vNPU pods on the real cluster: a PodGroup placed as one gang, and a
 * Queue whose capability names {@code huawei.com/vnpu-cores}.
 */
final class VolcanoChecks {

  private static final Duration SETTLE = Duration.ofSeconds(90);

  private final KubernetesClient admin;
  private final ClusterPods pods;
  private final Consumer<String> progress;
  private final List<Check> checks = new ArrayList<>();

  VolcanoChecks(KubernetesClient admin, ClusterPods pods, Consumer<String> progress) {
    this.admin = admin;
    this.pods = pods;
    this.progress = progress;
  }

  List<Check> run() throws InterruptedException {
    gang();
    queue();
    return List.copyOf(checks);
  }

  /**
   * A PodGroup of minMember 4 and four identical shared-chip pods: with three of them Volcano binds
   * none (the gang is not whole); with the fourth it binds all four.
   */
  private void gang() throws InterruptedException {
    String group = "gang";
    admin
        .genericKubernetesResources("scheduling.volcano.sh/v1beta1", "PodGroup")
        .inNamespace(ClusterPods.NAMESPACE)
        .resource(
            new GenericKubernetesResourceBuilder()
                .withApiVersion("scheduling.volcano.sh/v1beta1")
                .withKind("PodGroup")
                .withNewMetadata()
                .withName(group)
                .withNamespace(ClusterPods.NAMESPACE)
                .endMetadata()
                .withAdditionalProperties(
                    Map.of("spec", Map.of("minMember", 4, "queue", "default")))
                .build())
        .create();
    List<String> names = List.of("gang-1", "gang-2", "gang-3", "gang-4");
    for (String name : names.subList(0, 3)) {
      pods.create(grouped(name, group));
    }
    Thread.sleep(10_000);
    long early = names.subList(0, 3).stream().filter(pods::bound).count();
    pods.create(grouped(names.get(3), group));
    boolean all = ClusterPods.await(() -> names.stream().allMatch(pods::running), SETTLE);
    List<String> chips = names.stream().map(pods::chipOf).toList();
    String detail =
        early
            + " of 3 bound before the fourth came; then "
            + names.stream().filter(pods::running).count()
            + " of 4 running, on chips "
            + chips;
    progress.accept("      " + detail);
    checks.add(
        new Check(
            "Volcano places a PodGroup of minMember 4 shared-chip pods as one gang: none before"
                + " the fourth, then all four",
            early == 0 && all,
            detail));
    names.forEach(pods::delete);
    admin
        .genericKubernetesResources("scheduling.volcano.sh/v1beta1", "PodGroup")
        .inNamespace(ClusterPods.NAMESPACE)
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
    pods.create(queued("capped-1", queue));
    boolean first = ClusterPods.await(() -> pods.running("capped-1"), SETTLE);
    pods.create(queued("capped-2", queue));
    Thread.sleep(15_000);
    boolean heldBack = !pods.bound("capped-2");
    pods.delete("capped-1");
    boolean after = ClusterPods.await(() -> pods.running("capped-2"), SETTLE);
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
    pods.delete("capped-2");
    admin
        .genericKubernetesResources("scheduling.volcano.sh/v1beta1", "Queue")
        .withName(queue)
        .delete();
  }

  /** A shared-chip pod of a Volcano PodGroup. */
  private Pod grouped(String name, String group) {
    return new PodBuilder(pods.shared(name, ClusterPods.NAMESPACE, 20))
        .editMetadata()
        .addToAnnotations("scheduling.k8s.io/group-name", group)
        .endMetadata()
        .build();
  }

  /** A pod of 30 % in Volcano Queue {@code queue}. */
  private Pod queued(String name, String queue) {
    return new PodBuilder(pods.shared(name, ClusterPods.NAMESPACE, 30))
        .editMetadata()
        .addToAnnotations("scheduling.volcano.sh/queue-name", queue)
        .endMetadata()
        .build();
  }
}
