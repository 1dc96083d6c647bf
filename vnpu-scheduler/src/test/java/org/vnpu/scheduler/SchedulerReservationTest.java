package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.vnpu.scheduler.ClusterFixture.sharePod;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.KeySet;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.ledger.ChargeKey;
import org.vnpu.core.request.PodManifest;
import org.vnpu.kube.NodeLocks;
import org.vnpu.testkit.MutableClock;

/**
 * Reservations end: in time when their pods are never bound (also those an earlier leader made),
 * when their pods are deleted, and when what follows the decision fails; each time the node's lock
 * goes with them. Decisions do not wait for the API server.
 */
@EnableKubernetesMockClient(crud = true)
class SchedulerReservationTest {

  KubernetesClient client;

  private final MutableClock clock = new MutableClock(Instant.now());

  @BeforeEach
  void nodes() {
    ClusterFixture.create(client, ClusterFixture.node("a", 2, "64"));
    ClusterFixture.create(client, ClusterFixture.node("b", 2, "64"));
  }

  private Scheduler scheduler() {
    Scheduler scheduler = ClusterFixture.scheduler(client, clock);
    scheduler.rebuild();
    return scheduler;
  }

  private PodManifest pod(String name) {
    return Fabric8Views.manifest(ClusterFixture.create(client, sharePod(name, "1"), null));
  }

  private Pod stored(String name) {
    return client.pods().inNamespace("default").withName(name).get();
  }

  /** The node's lock entries and records, each as key=value; null when it holds none. */
  private String lockOf(String node) {
    Lease lease = ClusterFixture.locks(client, node);
    Map<String, String> annotations = lease == null ? null : lease.getMetadata().getAnnotations();
    String locks =
        annotations == null
            ? ""
            : new TreeMap<>(annotations)
                .entrySet().stream()
                    .filter(annotation -> AnnotationKeys.isNodeLockKey(annotation.getKey()))
                    .map(annotation -> annotation.getKey() + "=" + annotation.getValue())
                    .collect(Collectors.joining("\n"));
    return locks.isEmpty() ? null : locks;
  }

  @Test
  void anExpiredReservationClearsThePodAndReleasesTheLock() throws Exception {
    Scheduler scheduler = scheduler();
    scheduler.reserve(pod("late"), "a").join();
    assertThat(lockOf("a")).isNotNull();

    clock.advance(SchedulerSettings.defaults().reservationTimeout().plusSeconds(1));
    scheduler.expireReservations();

    assertThat(stored("late").getMetadata().getAnnotations())
        .doesNotContainKeys(AnnotationKeys.ALLOCATION, AnnotationKeys.BIND_PHASE);
    assertThat(lockOf("a")).isNull();
    assertThat(scheduler.placements()).isEmpty();
    scheduler.podChanged(stored("late"));
    assertThat(scheduler.placements()).as("the expiry sticks").isEmpty();
  }

  /**
   * Volcano's {@code Statement.Pipeline} calls the allocate handlers, the extender's allocateFunc
   * among them ({@code pkg/scheduler/framework/statement.go}), and a pipelined task is not bound:
   * the next session places it again, maybe elsewhere, and binds it with the annotations its
   * session read ({@code cache.go DefaultBinder.Bind}). The real Volcano bound a pod pipelined to
   * one node onto another with the first node's allocation, which the device plugin refused. A
   * pipeline writes nothing: it holds the place, free for its pod only.
   */
  @Test
  void aPipelinedPodHoldsItsPlaceWithoutWritingAndMayStillBeAllocatedElsewhere() throws Exception {
    Scheduler scheduler = scheduler();
    PodManifest whole =
        Fabric8Views.manifest(
            ClusterFixture.create(client, ClusterFixture.wholeCardsPod("whole", "1", 2), null));
    PodManifest other =
        Fabric8Views.manifest(
            ClusterFixture.create(client, ClusterFixture.wholeCardsPod("other", "1", 2), null));

    scheduler.pipeline(whole, "a");

    assertThat(lockOf("a")).as("nothing written on the node").isNull();
    assertThat(stored("whole").getMetadata().getAnnotations())
        .as("nothing written on the pod")
        .doesNotContainKey(AnnotationKeys.ALLOCATION);
    assertThat(scheduler.filter(other, List.of("a")).get("a").fits())
        .as("its place on a is held")
        .isFalse();
    assertThat(scheduler.filter(whole, List.of("a", "b")))
        .allSatisfy((node, verdict) -> assertThat(verdict.fits()).as(node).isTrue());

    scheduler.reserve(whole, "b").join();
    assertThat(scheduler.placements())
        .doesNotContainKey(ChargeKey.preemptorPlace(whole.uid()).ledgerKey());
    assertThat(scheduler.filter(other, List.of("a")).get("a").fits())
        .as("allocated elsewhere, its place on a is free again")
        .isTrue();
    assertThat(stored("whole").getMetadata().getAnnotations())
        .containsEntry(AnnotationKeys.ASSIGNED_NODE, "b");
  }

  @Test
  void aPodPipelinedWhereItIsThenAllocatedTakesItsHeldPlace() throws Exception {
    Scheduler scheduler = scheduler();
    PodManifest whole =
        Fabric8Views.manifest(
            ClusterFixture.create(client, ClusterFixture.wholeCardsPod("whole", "1", 2), null));
    scheduler.pipeline(whole, "a");

    scheduler.reserve(whole, "a").join();

    assertThat(scheduler.placements())
        .containsKey(whole.uid())
        .doesNotContainKey(ChargeKey.preemptorPlace(whole.uid()).ledgerKey());
    assertThat(lockOf("a")).isNotNull();
  }

  /**
   * An allocation written on a pod that was never bound is not moved to another node: a Volcano
   * binding there would carry the written one back. Refused, Volcano undoes it with deallocateFunc,
   * and the pod is free to go anywhere.
   */
  @Test
  void aWrittenReservationIsNotMovedToAnotherNodeUntilItIsUndone() throws Exception {
    Scheduler scheduler = scheduler();
    PodManifest whole =
        Fabric8Views.manifest(
            ClusterFixture.create(client, ClusterFixture.wholeCardsPod("whole", "1", 2), null));
    scheduler.reserve(whole, "a").join();

    assertThatThrownBy(() -> scheduler.reserve(whole, "b").join())
        .isInstanceOf(SchedulingException.class)
        .hasMessageContaining("already placed on node a")
        .hasMessageContaining("Volcano binding would carry it back");
    assertThat(stored("whole").getMetadata().getAnnotations())
        .containsEntry(AnnotationKeys.ASSIGNED_NODE, "a");

    scheduler.unreserve(whole.namespace(), whole.name(), whole.uid());
    scheduler.reserve(whole, "b").join();
    assertThat(lockOf("a")).isNull();
    assertThat(stored("whole").getMetadata().getAnnotations())
        .containsEntry(AnnotationKeys.ASSIGNED_NODE, "b");
  }

  /**
   * Reserves the pod on node a and undoes the reservation; returns the pod as the reservation
   * annotated it. Volcano's deallocateFunc can follow allocateFunc before the informer delivers
   * that copy, which then arrives after the undo.
   */
  private Pod reservedAndUndone(Scheduler scheduler, PodManifest pod) throws Exception {
    scheduler.reserve(pod, "a").join();
    Pod annotated = stored(pod.name());
    scheduler.unreserve(pod.namespace(), pod.name(), pod.uid());
    return annotated;
  }

  @Test
  void theInformersStaleCopyOfAnUndonePodDoesNotChargeItsAllocationAgain() throws Exception {
    Scheduler scheduler = scheduler();
    PodManifest pod = pod("undone");
    Pod first = reservedAndUndone(scheduler, pod);

    scheduler.podChanged(first);
    assertThat(scheduler.placements()).as("the copy from before the undo").isEmpty();

    Pod second = reservedAndUndone(scheduler, pod);
    scheduler.podChanged(first);
    scheduler.podChanged(second);
    assertThat(scheduler.placements()).as("copies of both undone reservations").isEmpty();
  }

  @Test
  void anOwnerWritingAnUndoneAllocationBackOnItsPodGetsNoCharge() throws Exception {
    Scheduler scheduler = scheduler();
    PodManifest pod = pod("replay");
    Pod annotated = reservedAndUndone(scheduler, pod);
    // The pod's owner may edit its annotations: it puts the signed allocation back, which still
    // verifies, to hold the chip without a reservation.
    client
        .pods()
        .inNamespace(pod.namespace())
        .withName(pod.name())
        .edit(
            edited -> {
              edited
                  .getMetadata()
                  .getAnnotations()
                  .putAll(annotated.getMetadata().getAnnotations());
              return edited;
            });

    scheduler.podChanged(stored("replay"));

    assertThat(scheduler.placements()).isEmpty();
  }

  @Test
  void aBoundPodCarryingAnUndoneAllocationIsCharged() throws Exception {
    Scheduler scheduler = scheduler();
    PodManifest pod = pod("kept");
    Pod annotated = reservedAndUndone(scheduler, pod);

    annotated.getSpec().setNodeName("a");
    scheduler.podChanged(annotated);
    assertThat(scheduler.placements())
        .as("a pod that runs with the allocation holds its vNPUs")
        .containsOnlyKeys(pod.uid());
  }

  @Test
  void aPodBoundAsItsReservationExpiresKeepsItsVnpusThoughTheInformerHasNotSaidSoYet()
      throws Exception {
    Scheduler scheduler = scheduler();
    PodManifest pod = pod("just-in-time");
    scheduler.reserve(pod, "a").join();
    // Volcano binds asynchronously, so a binding can land as the reservation's time runs out; this
    // scheduler's informer has not delivered it. (The CRUD mock stores a Binding without binding.)
    client
        .pods()
        .inNamespace(pod.namespace())
        .withName(pod.name())
        .edit(
            bound -> {
              bound.getSpec().setNodeName("a");
              return bound;
            });

    clock.advance(SchedulerSettings.defaults().reservationTimeout().plusSeconds(1));
    scheduler.expireReservations();

    assertThat(stored("just-in-time").getMetadata().getAnnotations())
        .containsKeys(AnnotationKeys.ALLOCATION, AnnotationKeys.BIND_PHASE);
    assertThat(scheduler.placements()).containsOnlyKeys(pod.uid());
    assertThat(lockOf("a"))
        .as("the device plugin releases it when it hands the pod out")
        .isNotNull();
    clock.advance(SchedulerSettings.defaults().reservationTimeout().plusSeconds(1));
    scheduler.expireReservations();
    assertThat(scheduler.placements()).as("it does not expire again").containsOnlyKeys(pod.uid());
  }

  @Test
  void anExpiryLeavesAPodOfTheSameNameAndAnotherUidAlone() throws Exception {
    Scheduler scheduler = scheduler();
    PodManifest first = pod("reborn");
    scheduler.reserve(first, "a").join();
    // Deleted and created again (a StatefulSet's pod) while the informer missed the deletion.
    client.pods().inNamespace("default").withName("reborn").delete();
    clock.advance(Duration.ofSeconds(30));
    PodManifest second = pod("reborn");
    scheduler.reserve(second, "b").join();

    clock.advance(SchedulerSettings.defaults().reservationTimeout().minusSeconds(29));
    scheduler.expireReservations();

    assertThat(scheduler.placements()).containsOnlyKeys(second.uid());
    assertThat(lockOf("a")).isNull();
    assertThat(stored("reborn").getMetadata().getAnnotations())
        .as("the second pod's reservation")
        .containsKeys(AnnotationKeys.ALLOCATION, AnnotationKeys.BIND_PHASE);
  }

  @Test
  void aReservationAnEarlierLeaderMadeExpiresUnderTheNextOne() throws Exception {
    scheduler().reserve(pod("orphan"), "a").join();

    Scheduler next = scheduler();
    assertThat(next.placements()).hasSize(1);
    clock.advance(Duration.ofSeconds(30));
    next.expireReservations();
    assertThat(next.placements()).as("not yet: reserved 30 s ago").hasSize(1);

    clock.advance(SchedulerSettings.defaults().reservationTimeout());
    next.expireReservations();

    assertThat(next.placements()).isEmpty();
    assertThat(lockOf("a")).isNull();
    assertThat(stored("orphan").getMetadata().getAnnotations())
        .doesNotContainKey(AnnotationKeys.ALLOCATION);
  }

  @Test
  void podsAskingForOtherVnpuCountsOrOfOneShapeShareANodeAndAnotherShapeOfACountWaits()
      throws Exception {
    ClusterFixture.create(client, ClusterFixture.node("c", 4, "64"));
    Scheduler scheduler = scheduler();
    scheduler.reserve(pod("share"), "c").join();
    scheduler
        .reserve(
            Fabric8Views.manifest(
                ClusterFixture.create(client, ClusterFixture.wholeCardsPod("pair", "1", 2), null)),
            "c")
        .join();

    assertThat(
            ClusterFixture.CODEC
                .locksOf(ClusterFixture.locks(client, "c").getMetadata().getAnnotations())
                .holders())
        .extracting(NodeLock::podName, NodeLock::counts)
        .containsExactly(tuple("share", List.of(1)), tuple("pair", List.of(2)));
    assertThat(scheduler.lockRefusals()).isZero();
    scheduler.reserve(pod("same-shape"), "c").join();
    PodManifest card =
        Fabric8Views.manifest(
            ClusterFixture.create(client, ClusterFixture.wholeCardPod("card", "1"), null));
    assertThat(scheduler.filter(card, List.of("c")).get("c").reason())
        .isEqualTo("node is locked by another pod's allocation");
    assertThat(scheduler.lockRefusals()).isZero();
  }

  @Test
  void aDeletedPodsLockIsReleased() throws Exception {
    Scheduler scheduler = scheduler();
    PodManifest pod = pod("deleted");
    scheduler.reserve(pod, "a").join();

    client.pods().inNamespace("default").withName("deleted").delete();
    scheduler.podRemoved(pod.uid());

    assertThat(lockOf("a")).isNull();
    assertThat(scheduler.placements()).isEmpty();
  }

  @Test
  void aLockLeaseThatDoesNotDecodeHoldsNothingAndIsReplacedByTheNextEntry() throws Exception {
    Scheduler scheduler = scheduler();
    Lease garbled =
        client
            .resource(
                new LeaseBuilder()
                    .withNewMetadata()
                    .withName("a")
                    .withNamespace(NodeLocks.NAMESPACE)
                    .addToAnnotations(AnnotationKeys.nodeLock("u"), "{\"v\":1,\"podUid\":[]}")
                    .endMetadata()
                    .build())
            .create();
    scheduler.locksChanged(garbled);

    PodManifest pod = pod("first");
    assertThat(scheduler.reserve(pod, "a").join().node()).isEqualTo("a");
    assertThat(lockOf("a")).contains(pod.uid());
  }

  @Test
  void aLockTheLedgerHadNotSeenRefusesTheReservationAndChargesNothing() throws Exception {
    Scheduler scheduler = scheduler();
    Instant now = clock.instant();
    new NodeLocks(client, ClusterFixture.CODEC)
        .take(
            "a",
            new NodeLock(
                "other-uid",
                "default",
                "other",
                now,
                now.plusSeconds(60),
                "other-nonce",
                "other-shape",
                List.of(1),
                0),
            now);

    assertThatThrownBy(() -> scheduler.reserve(pod("second"), "a").join())
        .hasCauseInstanceOf(SchedulingException.class)
        .hasMessageContaining("node a is locked by pod default/other");
    assertThat(scheduler.placements()).isEmpty();
    assertThat(stored("second").getMetadata().getAnnotations())
        .doesNotContainKey(AnnotationKeys.ALLOCATION);
    assertThat(scheduler.lockRefusals()).isEqualTo(1);
    assertThat(scheduler.reserve(pod("elsewhere"), "b").join().node()).isEqualTo("b");
  }

  @Test
  void aPodThatCannotBeAnnotatedLeavesNoLockAndNoCharge() {
    Scheduler scheduler = scheduler();
    PodManifest ghost =
        Fabric8Views.manifest(sharePod("ghost", "1").build()); // never written to the API server

    assertThatThrownBy(() -> scheduler.reserve(ghost, "a").join())
        .hasCauseInstanceOf(SchedulingException.class)
        .hasMessageContaining(
            "pod default/ghost: the reservation of its vNPUs on node a was undone");
    assertThat(lockOf("a")).isNull();
    assertThat(scheduler.placements()).isEmpty();
  }

  @Test
  void decisionsGoOnWhileAPodsSignatureWaitsForThePublicKeys() throws Exception {
    // Verifying may read the keys' ConfigMap through the API server: here that read never ends.
    CountDownLatch reading = new CountDownLatch(1);
    KeySet stuck =
        id -> {
          reading.countDown();
          try {
            new CountDownLatch(1).await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return Optional.empty();
        };
    Scheduler scheduler =
        new Scheduler(
            client,
            ChipCatalog.builtIn(),
            ClusterFixture.SIGNER,
            new AllocationVerifier(stuck, ClusterFixture.CODEC),
            SchedulerSettings.defaults(),
            clock);
    scheduler.rebuild();
    Pod signed =
        sharePod("placed", "1")
            .editMetadata()
            .addToAnnotations(
                AnnotationKeys.ALLOCATION,
                ClusterFixture.CODEC.encodeAllocation(
                    ClusterFixture.SIGNER.sign(
                        new PodAllocation("uid-placed", "a", List.of()), "nonce")))
            .withUid("uid-placed")
            .endMetadata()
            .build();
    Thread informer = new Thread(() -> scheduler.podChanged(signed));
    informer.setDaemon(true);
    informer.start();
    reading.await();

    Map<String, Verdict> verdicts =
        assertTimeoutPreemptively(
            Duration.ofSeconds(5), () -> scheduler.filter(pod("next"), List.of("a")));

    assertThat(verdicts.get("a").fits()).isTrue();
  }

  @Test
  void decisionsGoOnWhileAReservationWaitsForTheApiServer() throws Exception {
    try (ServerSocket silent = new ServerSocket(0)) {
      List<Socket> accepted = new ArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(silent.accept()); // and never answer
                  }
                } catch (Exception e) {
                  // closed
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      Config config =
          new ConfigBuilder()
              .withMasterUrl("http://127.0.0.1:" + silent.getLocalPort())
              .withRequestTimeout(60_000)
              .withRequestRetryBackoffLimit(0)
              .build();
      try (KubernetesClient hanging = new KubernetesClientBuilder().withConfig(config).build()) {
        Scheduler scheduler = ClusterFixture.scheduler(hanging, clock);
        scheduler.nodeChanged(ClusterFixture.node("a", 2, "64"));
        scheduler.nodeChanged(ClusterFixture.node("b", 2, "64"));
        PodManifest waiting = Fabric8Views.manifest(sharePod("waiting", "1").build());
        // Another shape asking for as many vNPUs: it may not stand beside the waiting one.
        PodManifest next = Fabric8Views.manifest(ClusterFixture.wholeCardPod("next", "1").build());
        CompletableFuture.runAsync(
            () -> {
              try {
                scheduler.reserve(waiting, "a").join(); // blocks on the API server
              } catch (SchedulingException e) {
                // the silent server gives up eventually
              }
            });
        Thread.sleep(300);

        Map<String, Verdict> verdicts =
            assertTimeoutPreemptively(
                Duration.ofSeconds(5), () -> scheduler.filter(next, List.of("a", "b")));

        assertThat(verdicts.get("b").fits()).isTrue();
        assertThat(verdicts.get("a").reason()).contains("locked");
      }
    }
  }
}
