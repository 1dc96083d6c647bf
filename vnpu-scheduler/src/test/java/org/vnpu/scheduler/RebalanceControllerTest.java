package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.core.ledger.ChargeKey;
import org.vnpu.core.request.PodManifest;
import org.vnpu.testkit.MutableClock;

/**
 * The rebalancer against the fabric8 mock API server: nodes a, b and c of two 910B3 chips, each
 * with one offline share of a ReplicaSet on chip 0, and a pending job of two whole cards that no
 * node can take until a share moves.
 */
@EnableKubernetesMockClient(crud = true)
class RebalanceControllerTest {

  KubernetesClient client;
  KubernetesMockServer server;

  private final MutableClock clock = new MutableClock(Instant.now());
  private Scheduler scheduler;

  @BeforeEach
  void cluster() {
    for (String node : List.of("a", "b", "c")) {
      ClusterFixture.create(client, ClusterFixture.node(node, 2, null));
    }
    scheduler = ClusterFixture.scheduler(client, clock);
    scheduler.rebuild();
    for (String node : List.of("a", "b", "c")) {
      running("share-" + node, node);
    }
    clock.advance(Duration.ofSeconds(90)); // past pendingFor, within the heartbeat tolerance
  }

  @Test
  void dryRunPlansAndTellsThePendingPodButEvictsNothing() {
    PodManifest job = pendingJob("job");

    List<RebalanceController.Decision> decisions = controller(RebalanceMode.DRY_RUN, 6).pass();

    assertThat(decisions).hasSize(1);
    assertThat(decisions.get(0).outcome()).isEqualTo("planned");
    assertThat(decisions.get(0).plan().moves()).hasSize(1);
    assertThat(client.pods().inNamespace("default").list().getItems()).hasSize(4);
    assertThat(scheduler.placements().keySet()).noneMatch(key -> key.contains(":"));
    assertThat(scheduler.rebalanceCounts()).containsEntry("plans\ndry-run", 1L);
    awaitEvent("job", "VnpuRebalancing", "dry-run: would move 1 pod(s): default/share-");
    assertThat(fitsAnywhere(job)).isFalse();
  }

  @Test
  void executeHoldsEveryPlaceBeforeItEvictsAndTheMovedPodsReplacementTakesItsPlace()
      throws Exception {
    answerEvictions(201, new StatusBuilder().withStatus("Success").build());
    PodManifest job = pendingJob("job");

    RebalanceController.Decision decision = controller(RebalanceMode.EXECUTE, 6).pass().get(0);

    assertThat(decision.outcome()).isEqualTo("moved");
    String moved = decision.plan().moves().get(0).pod().podUid();
    String movedName = decision.plan().moves().get(0).pod().request().name();
    String target = decision.plan().pending().node();
    String destination = decision.plan().moves().get(0).to().node();
    RecordedRequest eviction = server.takeRequest(5, TimeUnit.SECONDS);
    while (!eviction.getPath().endsWith("/eviction")) {
      eviction = server.takeRequest(5, TimeUnit.SECONDS);
    }
    assertThat(eviction.getPath())
        .isEqualTo("/api/v1/namespaces/default/pods/" + movedName + "/eviction");
    assertThat(eviction.getBody().readUtf8())
        .contains("\"kind\":\"Eviction\"")
        .contains("\"name\":\"" + movedName + "\"");
    assertThat(scheduler.placements())
        .as("the moved pod stays charged until it is gone; its replacement's place is held")
        .containsKeys(moved, ChargeKey.replacement(moved).ledgerKey());
    assertThat(fitsAnywhere(job)).isFalse();

    evicted(movedName, moved);
    assertThat(scheduler.placements()).containsKey(ChargeKey.preemptorPlace(job.uid()).ledgerKey());
    assertThat(scheduler.filter(pendingJob("other-job"), List.of(target)).get(target).fits())
        .as("the place made for the job is held for it")
        .isFalse();
    assertThat(scheduler.filter(job, List.of(target)).get(target).fits()).isTrue();

    Pod replacement = replacementOf(decision.plan().moves().get(0).pod().request().name());
    scheduler.podChanged(replacement);
    scheduler.reserve(Fabric8Views.manifest(replacement), destination).join();
    assertThat(scheduler.placements()).doesNotContainKey(ChargeKey.replacement(moved).ledgerKey());
    scheduler.reserve(job, target).join();
    assertThat(scheduler.placements())
        .doesNotContainKey(ChargeKey.preemptorPlace(job.uid()).ledgerKey());
    assertThat(scheduler.rebalanceCounts()).containsEntry("moves\nexecute", 1L);
    awaitEvent(moved, "VnpuRebalanced", "evicted to rebalance for pod default/job");
  }

  @Test
  void aReplacementPlacedOnAnotherNodeThanItsHeldPlaceEndsThatHold() throws Exception {
    answerEvictions(201, new StatusBuilder().withStatus("Success").build());
    pendingJob("job");
    RebalanceController.Decision decision = controller(RebalanceMode.EXECUTE, 6).pass().get(0);
    String moved = decision.plan().moves().get(0).pod().podUid();
    String movedName = decision.plan().moves().get(0).pod().request().name();
    String destination = decision.plan().moves().get(0).to().node();
    evicted(movedName, moved);
    String elsewhere =
        List.of("a", "b", "c").stream()
            .filter(node -> !node.equals(destination))
            .filter(node -> !node.equals(decision.plan().pending().node()))
            .findFirst()
            .orElseThrow();

    Pod replacement = replacementOf(movedName);
    scheduler.podChanged(replacement);
    scheduler.reserve(Fabric8Views.manifest(replacement), elsewhere).join();

    assertThat(scheduler.placements())
        .as("its place on node %s is not left charged until it expires", destination)
        .doesNotContainKey(ChargeKey.replacement(moved).ledgerKey());
  }

  @Test
  void aDisruptionBudgetThatRefusesTheEvictionCancelsThePlanAndItsHolds() {
    answerEvictions(
        429,
        new StatusBuilder()
            .withStatus("Failure")
            .withReason("TooManyRequests")
            .withCode(429)
            .withMessage("Cannot evict pod as it would violate the pod's disruption budget.")
            .build());
    PodManifest job = pendingJob("job");

    RebalanceController.Decision decision = controller(RebalanceMode.EXECUTE, 6).pass().get(0);

    assertThat(decision.outcome()).isEqualTo("disruption-budget");
    assertThat(client.pods().inNamespace("default").list().getItems()).hasSize(4);
    assertThat(scheduler.placements().keySet())
        .as("no place stays held for a plan that will not happen")
        .noneMatch(key -> key.contains(":"));
    assertThat(scheduler.rebalanceCounts()).containsEntry("refusals\ndisruption-budget", 1L);
    assertThat(fitsAnywhere(job)).isFalse();
  }

  @Test
  void evictionsStopAtTheLimitPerInterval() {
    answerEvictions(201, new StatusBuilder().withStatus("Success").build());
    pendingJob("job-1");
    pendingJob("job-2");
    RebalanceController controller = controller(RebalanceMode.EXECUTE, 1);

    List<RebalanceController.Decision> decisions = controller.pass();

    assertThat(decisions)
        .extracting(RebalanceController.Decision::outcome)
        .containsExactly("moved", "rate-limit");
    assertThat(scheduler.rebalanceCounts()).containsEntry("refusals\nrate-limit", 1L);

    clock.advance(Duration.ofSeconds(20));
    assertThat(controller.pass())
        .as("a new interval, but the moved pod's owner cools down and the other shares stay")
        .extracting(RebalanceController.Decision::outcome)
        .contains("moved");
  }

  @Test
  void offModeDoesNothing() {
    pendingJob("job");
    assertThat(controller(RebalanceMode.OFF, 6).pass()).isEmpty();
  }

  /**
   * The mock API server serves no Eviction subresource; it answers evictions of the shares as the
   * API server would: 201 when the eviction is allowed (the API server then deletes the pod, which
   * {@link #evicted} does), 429 when a PodDisruptionBudget refuses it.
   */
  private void answerEvictions(int code, Object body) {
    for (String node : List.of("a", "b", "c")) {
      server
          .expect()
          .post()
          .withPath("/api/v1/namespaces/default/pods/share-" + node + "/eviction")
          .andReturn(code, body)
          .always();
    }
  }

  /** What the API server does after an allowed eviction: the pod is deleted, and it is gone. */
  private void evicted(String name, String uid) {
    client.pods().inNamespace("default").withName(name).delete();
    scheduler.podRemoved(uid);
  }

  private RebalanceController controller(RebalanceMode mode, int perInterval) {
    RebalanceSettings defaults = RebalanceSettings.defaults();
    return new RebalanceController(
        client,
        scheduler.rebalancing(),
        new RebalanceSettings(
            mode,
            Duration.ofSeconds(10),
            Duration.ofMinutes(1),
            0,
            3,
            perInterval,
            2,
            1,
            Duration.ofMinutes(1),
            defaults.marks(),
            defaults.hotFor(),
            defaults.holdFor()),
        clock);
  }

  /** An offline share of 10 % on chip 0 of {@code node}, owned by its own ReplicaSet. */
  private void running(String name, String node) {
    PodBuilder builder = ownedShare(name, "rs-" + name);
    builder
        .withNewStatus()
        .withPhase("Running")
        .withStartTime(clock.instant().toString())
        .endStatus();
    Pod pod = ClusterFixture.create(client, builder, node);
    String uid = pod.getMetadata().getUid();
    PodAllocation allocation =
        ClusterFixture.share(uid, node, 0, node + "-die-0", 4096, 10, new OfflineWork(1));
    pod.getMetadata()
        .getAnnotations()
        .put(AnnotationKeys.ALLOCATION, ClusterFixture.signed(allocation));
    pod.setStatus(builder.buildStatus());
    scheduler.podChanged(client.pods().inNamespace("default").resource(pod).update());
  }

  /** The pod the ReplicaSet of the moved pod {@code name} creates in its stead. */
  private Pod replacementOf(String name) {
    PodBuilder builder = ownedShare(name + "-2", "rs-" + name);
    builder.withNewStatus().withPhase("Pending").endStatus();
    return ClusterFixture.create(client, builder, null);
  }

  /** A share pod (10 %, 4 GiB) of the ReplicaSet {@code owner}, offline. */
  private PodBuilder ownedShare(String name, String owner) {
    PodBuilder builder = ClusterFixture.sharePod(name, "1");
    return builder
        .editMetadata()
        .withAnnotations(new HashMap<>())
        .addToAnnotations(AnnotationKeys.PRIORITY, "offline")
        .withCreationTimestamp(clock.instant().toString())
        .withOwnerReferences(
            new OwnerReferenceBuilder()
                .withApiVersion("apps/v1")
                .withKind("ReplicaSet")
                .withName(owner)
                .withUid(owner)
                .withController(true)
                .build())
        .endMetadata();
  }

  private PodManifest pendingJob(String name) {
    PodBuilder builder = ClusterFixture.wholeCardsPod(name, "1", 2);
    builder.withNewStatus().withPhase("Pending").endStatus();
    return Fabric8Views.manifest(ClusterFixture.create(client, builder, null));
  }

  private boolean fitsAnywhere(PodManifest pod) {
    try {
      return scheduler.filter(pod, List.of("a", "b", "c")).values().stream()
          .anyMatch(Verdict::fits);
    } catch (SchedulingException e) {
      throw new AssertionError(e);
    }
  }

  private void awaitEvent(String pod, String reason, String message) {
    await()
        .untilAsserted(
            () ->
                assertThat(client.v1().events().inNamespace("default").list().getItems())
                    .anyMatch(
                        e ->
                            (e.getInvolvedObject().getName().equals(pod)
                                    || pod.equals(e.getInvolvedObject().getUid()))
                                && e.getReason().equals(reason)
                                && e.getMessage().contains(message)));
  }
}
