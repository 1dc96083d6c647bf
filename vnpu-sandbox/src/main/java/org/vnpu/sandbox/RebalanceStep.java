package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.kube.PodPhases;

/**
 * The rebalancer at work (docs/rebalancing.md), on the empty cluster: the ReplicaSet {@link
 * #SHARDS} spreads small offline shares over the 910B3 nodes, so that no node has {@value
 * #WHOLE_CARD_COUNT} free chips for {@link #WHOLE_CARDS}. The sandbox's rebalancer ({@link
 * DemoCluster#REBALANCING}) finds the fewest moves, holds the places, and evicts; the ReplicaSet
 * makes new pods, which go to the held places, and the pod of whole cards runs. All of it is
 * deleted afterwards, so that the steps after it start from an empty cluster.
 */
final class RebalanceStep extends ScenarioStep {

  /** The ReplicaSet of shared pods the rebalancing step moves. */
  static final String SHARDS = "shards";

  /**
   * Replicas of {@link #SHARDS}: spread over the 910B3 nodes, they leave no node 8 free chips, and
   * every A2 node holds at least two of them.
   */
  private static final int SHARD_REPLICAS = 6;

  /** The pod the rebalancing step makes room for: every chip of one A2 node, as whole cards. */
  static final String WHOLE_CARDS = "whole-cards";

  static final int WHOLE_CARD_COUNT = 8;

  /** How long the rebalancing step waits for the rebalancer and the pods it moved. */
  private static final Duration REBALANCED = Duration.ofSeconds(60);

  /** How long no pod of the deleted ReplicaSet must appear before the cluster counts as empty. */
  private static final Duration QUIET = Duration.ofSeconds(2);

  private static final Pattern LEDGER_PODS =
      Pattern.compile("^vnpu_scheduler_ledger_pods (\\S+)$", Pattern.MULTILINE);

  RebalanceStep(Context context) {
    super(context);
  }

  @Override
  void run() throws IOException, InterruptedException {
    ReplicaSet spread = shards();
    spread.getSpec().getTemplate().getSpec().setSchedulerName(sandbox.schedulerName());
    ReplicaSet shards =
        client.apps().replicaSets().inNamespace(Scenario.NAMESPACE).resource(spread).create();
    List<Pod> replicas = awaitShards(shards, pods -> pods.stream().allMatch(ScenarioStep::running));
    progress.accept(
        "      "
            + replicas.size()
            + " pods of ReplicaSet "
            + SHARDS
            + " (spread): "
            + byNode(replicas));
    create(wholeCards());
    Instant deadline = Instant.now().plus(SETTLE);
    while (Instant.now().isBefore(deadline) && !settled(WHOLE_CARDS)) {
      Thread.sleep(200);
    }
    boolean refused = placed(WHOLE_CARDS) == null;
    progress.accept("      " + describe(WHOLE_CARDS));
    awaitPhase(WHOLE_CARDS, "Running", REBALANCED);
    List<Pod> after =
        awaitShards(
            shards,
            pods ->
                pods.stream().allMatch(ScenarioStep::running)
                    && pods.stream()
                        .map(ScenarioStep::name)
                        .anyMatch(name -> !names(replicas).contains(name)));
    List<String> plan = events(WHOLE_CARDS, "VnpuRebalancing");
    plan.forEach(message -> progress.accept("      the rebalancer's plan: " + message));
    List<String> moved = moved(replicas);
    progress.accept("      " + describe(WHOLE_CARDS));
    progress.accept("      the ReplicaSet's pods now: " + byNode(after));
    check(refused, moved, after);
    cleanUp(shards);
    int late = sweep(shards);
    checks.add(
        new Scenario.Check(
            "rebalancing: the cluster is empty again for the next steps",
            late >= 0,
            switch (late) {
              case -1 -> "vnpu_scheduler_ledger_pods not 0 after " + SETTLE.toSeconds() + " s";
              case 0 -> "vnpu_scheduler_ledger_pods 0";
              default ->
                  "vnpu_scheduler_ledger_pods 0, after deleting "
                      + late
                      + " pod(s) a controller round made as the ReplicaSet went";
            }));
  }

  /**
   * Whether the whole-card pod, refused at first, runs after 2 or 3 shared pods moved, and every
   * pod of the ReplicaSet runs again.
   */
  private void check(boolean refused, List<String> moved, List<Pod> after) {
    Placed whole = placed(WHOLE_CARDS);
    checks.add(
        new Scenario.Check(
            "rebalancing: "
                + WHOLE_CARDS
                + " fits nowhere until 2 or 3 shared pods move, then runs on "
                + WHOLE_CARD_COUNT
                + " whole chips of one node",
            refused
                && moved.size() >= 2
                && moved.size() <= 3
                && whole != null
                && whole.vnpus().size() == WHOLE_CARD_COUNT
                && whole.vnpus().stream().allMatch(VnpuAssignment::wholeCard)
                && "Running".equals(PodPhases.of(get(WHOLE_CARDS))),
            moved.size() + " moved (" + String.join(", ", moved) + "); " + describe(WHOLE_CARDS)));
    checks.add(
        new Scenario.Check(
            "rebalancing: every pod of ReplicaSet " + SHARDS + " runs again",
            after.size() == SHARD_REPLICAS && after.stream().allMatch(ScenarioStep::running),
            byNode(after)));
  }

  /** The replicas the rebalancer moved, by its events on them. */
  private List<String> moved(List<Pod> replicas) {
    List<String> moved = new ArrayList<>();
    for (Pod replica : replicas) {
      for (String message : events(name(replica), "VnpuRebalanced")) {
        moved.add(name(replica));
        progress.accept("      " + name(replica) + ": " + message);
      }
    }
    return moved;
  }

  /**
   * Scales the ReplicaSet to none and deletes it, its pods and the whole-card pod. Scaled to none
   * first, so that a controller that sees the ReplicaSet again makes no pod; a round that began
   * before may still make some, which {@link #sweep} deletes.
   */
  private void cleanUp(ReplicaSet shards) {
    client
        .apps()
        .replicaSets()
        .inNamespace(Scenario.NAMESPACE)
        .withName(SHARDS)
        .edit(set -> new ReplicaSetBuilder(set).editSpec().withReplicas(0).endSpec().build());
    client.apps().replicaSets().inNamespace(Scenario.NAMESPACE).withName(SHARDS).delete();
    client.pods().inNamespace(Scenario.NAMESPACE).withName(WHOLE_CARDS).delete();
  }

  /**
   * Deletes the pods of {@code shards} as they appear until none has appeared for {@link #QUIET}
   * and the scheduler's ledger holds no pod (its metric says so). How many pods were deleted after
   * the first sweep (made by a controller round that began before the ReplicaSet went), or -1 when
   * the cluster did not empty within {@link #SETTLE}.
   */
  private int sweep(ReplicaSet shards) throws IOException, InterruptedException {
    Instant deadline = Instant.now().plus(SETTLE);
    Instant quietSince = Instant.now();
    deleteAll(shardPods(shards));
    int late = 0;
    while (Instant.now().isBefore(deadline)) {
      int deleted = deleteAll(shardPods(shards));
      late += deleted;
      if (deleted > 0) {
        quietSince = Instant.now();
      } else if (ledgerEmpty() && Instant.now().isAfter(quietSince.plus(QUIET))) {
        return late;
      }
      Thread.sleep(200);
    }
    return -1;
  }

  private int deleteAll(List<Pod> pods) {
    pods.forEach(pod -> client.pods().inNamespace(Scenario.NAMESPACE).withName(name(pod)).delete());
    return pods.size();
  }

  /**
   * The ReplicaSet: small offline shares of 910B3 chips, spread; movable, as they are offline and a
   * controller owns them.
   */
  private static ReplicaSet shards() {
    Pod template =
        DemoPods.inference(
            SHARDS,
            20,
            8,
            "elastic",
            Map.of(
                AnnotationKeys.NODE_SCHEDULER_POLICY, "spread",
                AnnotationKeys.DEVICE_SCHEDULER_POLICY, "spread",
                AnnotationKeys.USE_NPU_TYPE, "910B3",
                AnnotationKeys.PRIORITY, "offline"),
            Map.of());
    return DemoPods.replicaSet(SHARDS, SHARD_REPLICAS, template);
  }

  private static Pod wholeCards() {
    return new PodBuilder()
        .withNewMetadata()
        .withName(WHOLE_CARDS)
        .withNamespace(Scenario.NAMESPACE)
        .withAnnotations(Map.of(AnnotationKeys.USE_NPU_TYPE, "910B3"))
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("volcano")
        .addNewContainer()
        .withName("main")
        .withImage("training:1")
        .withNewResources()
        .addToLimits(ResourceNames.VNPU_NUMBER, new Quantity(Integer.toString(WHOLE_CARD_COUNT)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** The set's active pods once {@code ready} holds of them and there are as many as it wants. */
  private List<Pod> awaitShards(ReplicaSet set, Predicate<List<Pod>> ready)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(REBALANCED);
    List<Pod> pods = shardPods(set);
    while (Instant.now().isBefore(deadline)
        && !(pods.size() == SHARD_REPLICAS && ready.test(pods))) {
      Thread.sleep(200);
      pods = shardPods(set);
    }
    return pods;
  }

  private List<Pod> shardPods(ReplicaSet set) {
    return client
        .pods()
        .inNamespace(Scenario.NAMESPACE)
        .withLabel("app", SHARDS)
        .list()
        .getItems()
        .stream()
        .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
        .filter(
            pod ->
                pod.getMetadata().getOwnerReferences().stream()
                    .anyMatch(owner -> owner.getUid().equals(set.getMetadata().getUid())))
        .toList();
  }

  /** Whether the scheduler's ledger holds no pod, as its metric says. */
  private boolean ledgerEmpty() throws IOException, InterruptedException {
    Matcher pods = LEDGER_PODS.matcher(scrape(sandbox.schedulerUrl() + "/metrics"));
    return pods.find() && Double.parseDouble(pods.group(1)) == 0;
  }
}
