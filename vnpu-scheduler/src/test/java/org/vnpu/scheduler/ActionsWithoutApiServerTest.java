package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.request.PodManifest;
import org.vnpu.testkit.MutableClock;

/**
 * Reserve, bind, unreserve and reservation expiry act through the {@link ClusterPort} alone: the
 * cluster is {@link InMemoryCluster}, whose writes can fail, so that what each action undoes when a
 * write fails is seen without an API server.
 */
class ActionsWithoutApiServerTest {

  private final MutableClock clock = new MutableClock(Instant.now());
  private final RecordedEvents events = new RecordedEvents();
  private final SchedulerCounters counters = new SchedulerCounters();
  private final InMemoryCluster cluster = new InMemoryCluster();
  private SchedulerState state;
  private PodReserver reserver;
  private ExpiryPass expiry;
  private Pod web;
  private PodManifest manifest;

  @BeforeEach
  void oneNodeAndOnePod() {
    state =
        new SchedulerState(
            ChipCatalog.builtIn(), ClusterFixture.CODEC, SchedulerSettings.defaults(), clock);
    state.cluster().nodeChanged(Fabric8Views.seen(ClusterFixture.node("one", 1, null)));
    reserver =
        new PodReserver(
            state,
            counters,
            cluster,
            events,
            new ReservationAnnotations(ClusterFixture.SIGNER, ClusterFixture.CODEC, clock));
    ClusterIntake intake =
        new ClusterIntake(state, ClusterFixture.VERIFIER, ClusterFixture.CODEC, cluster);
    expiry = new ExpiryPass(state, cluster, intake, reserver);
    web = ClusterFixture.sharePod("web", "1", 30).build();
    cluster.create(web);
    manifest = Fabric8Views.manifest(web);
  }

  @Test
  void aReservationChargesTheLedgerLocksTheNodeAndSignsThePod() throws Exception {
    reserver.reserve(manifest, "one").join();

    assertThat(state.cluster().allocation(uid())).isNotNull();
    assertThat(cluster.lockOf("one", uid())).isPresent();
    assertThat(annotations()).containsKey(AnnotationKeys.ALLOCATION);
    assertThat(events.said).extracting(RecordedEvents.Said::reason).containsExactly("allocated");
  }

  @Test
  void aReservationIsChargedAtOnceAndWrittenAfterTheAnswer() throws Exception {
    cluster.holdWrites();

    CompletableFuture<AllocationPlan> written = reserver.reserve(manifest, "one");

    assertThat(written).isNotDone();
    assertThat(state.cluster().allocation(uid())).isNotNull();
    assertThat(state.cluster().lockedBy(uid())).contains("one");
    cluster.releaseWrites();
    assertThat(written.join().node()).isEqualTo("one");
    assertThat(cluster.lockOf("one", uid())).isPresent();
    assertThat(annotations()).containsKey(AnnotationKeys.ALLOCATION);
  }

  @Test
  void aNodeSeenBeforeItsEntryIsWrittenKeepsTheEntryInTheLedger() throws Exception {
    cluster.holdWrites();
    CompletableFuture<AllocationPlan> written = reserver.reserve(manifest, "one");

    // The informer delivers the node as it was before the entry's write.
    state.cluster().nodeChanged(Fabric8Views.seen(ClusterFixture.node("one", 1, null)));

    assertThat(state.cluster().lockedBy(uid())).contains("one");
    cluster.releaseWrites();
    written.join();
  }

  @Test
  void anUndoWhileTheWritesAreUnderWayLeavesNothingWritten() throws Exception {
    cluster.holdWrites();
    CompletableFuture<AllocationPlan> written = reserver.reserve(manifest, "one");

    CompletableFuture<Void> undone =
        CompletableFuture.runAsync(() -> reserver.unreserve("default", "web", uid()));
    await().until(() -> state.cluster().allocation(uid()) == null); // waiting for the writes
    cluster.releaseWrites();
    undone.get(10, TimeUnit.SECONDS);

    assertThat(written).isCompletedExceptionally();
    assertThat(state.cluster().allocation(uid())).isNull();
    assertThat(cluster.lockOf("one", uid())).isEmpty();
    assertThat(annotations()).doesNotContainKey(AnnotationKeys.ALLOCATION);
  }

  @Test
  void aReservationWhoseAnnotationsCannotBeWrittenLeavesNeitherChargeNorLock() {
    cluster.failAnnotations();

    assertThatThrownBy(() -> reserver.reserve(manifest, "one").join())
        .hasCauseInstanceOf(SchedulingException.class)
        .hasMessageContaining(
            "pod default/web: the reservation of its vNPUs on node one was undone")
        .hasMessageContaining("cannot annotate the pod");
    assertThat(state.cluster().allocation(uid())).isNull();
    assertThat(cluster.lockOf("one", uid())).isEmpty();
    assertThat(events.said)
        .extracting(RecordedEvents.Said::reason)
        .containsExactly("unschedulable");
  }

  @Test
  void aNodeLockedForAnotherPodRefusesTheReservationAndCountsTheRefusal() {
    cluster.lockEveryNodeFor("another-pod");

    assertThatThrownBy(() -> reserver.reserve(manifest, "one").join())
        .hasCauseInstanceOf(SchedulingException.class)
        .hasMessageContaining("locked for pod UID another-pod");
    assertThat(state.cluster().allocation(uid())).isNull();
    assertThat(annotations()).doesNotContainKey(AnnotationKeys.ALLOCATION);
    assertThat(counters.lockRefusals()).isEqualTo(1);
  }

  @Test
  void aBindingThatFailsUndoesTheReservation() {
    cluster.failBindings();

    assertThatThrownBy(() -> reserver.bind(manifest, "one"))
        .isInstanceOf(SchedulingException.class)
        .hasMessageContaining("cannot bind pod default/web to one");
    assertThat(state.cluster().allocation(uid())).isNull();
    assertThat(cluster.lockOf("one", uid())).isEmpty();
    assertThat(annotations()).doesNotContainKey(AnnotationKeys.ALLOCATION);
  }

  @Test
  void aBindingCarriesTheAllocationOntoThePodInTheSameWrite() throws Exception {
    cluster.failAnnotations(); // no patch of the pod is needed

    reserver.bind(manifest, "one");

    assertThat(annotations()).containsKey(AnnotationKeys.ALLOCATION);
    assertThat(cluster.lockOf("one", uid())).isPresent();
    assertThat(state.cluster().allocation(uid())).isNotNull();
  }

  @Test
  void anExpiredReservationOfAnUnboundPodIsReleased() throws Exception {
    reserver.reserve(manifest, "one").join();

    clock.advance(SchedulerSettings.defaults().reservationTimeout().plusSeconds(1));
    expiry.expire();

    assertThat(state.cluster().allocation(uid())).isNull();
    assertThat(cluster.lockOf("one", uid())).isEmpty();
    assertThat(annotations()).doesNotContainKey(AnnotationKeys.ALLOCATION);
  }

  @Test
  void anExpiredReservationOfABoundPodEndsInItsBinding() throws Exception {
    reserver.reserve(manifest, "one").join();
    cluster.bind("default", "web", uid(), "one", Map.of());

    clock.advance(SchedulerSettings.defaults().reservationTimeout().plusSeconds(1));
    expiry.expire();

    assertThat(state.cluster().allocation(uid())).isNotNull();
    assertThat(annotations()).containsKey(AnnotationKeys.ALLOCATION);
  }

  @Test
  void anExpiredReservationOfADeletedPodIsReleasedAsADeletedPodIs() throws Exception {
    reserver.reserve(manifest, "one").join();
    cluster.delete("default", "web");

    clock.advance(SchedulerSettings.defaults().reservationTimeout().plusSeconds(1));
    expiry.expire();

    assertThat(state.cluster().allocation(uid())).isNull();
    assertThat(cluster.lockOf("one", uid())).isEmpty();
  }

  private String uid() {
    return web.getMetadata().getUid();
  }

  private Map<String, String> annotations() {
    return cluster.pod("default", "web").orElseThrow().getMetadata().getAnnotations();
  }
}
