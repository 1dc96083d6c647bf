package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.PodRef;
import org.vnpu.core.ledger.ChargeKey;
import org.vnpu.core.request.PodManifest;
import org.vnpu.kube.NodeLocks;
import org.vnpu.testkit.MutableClock;

/**
 * Priority preemption across the cluster (docs/colocation.md): the victims an online pod may evict
 * on a full node, and the place held for it while they go, against a node of one 910B3 chip.
 */
@EnableKubernetesMockClient(crud = true)
class PreemptionTest {

  KubernetesClient client;

  private final MutableClock clock = new MutableClock(Instant.now());
  private Scheduler scheduler;

  @BeforeEach
  void cluster() {
    ClusterFixture.create(client, ClusterFixture.node("c", 1, null));
    scheduler = ClusterFixture.scheduler(client, clock);
    scheduler.rebuild();
  }

  /** A pod running on chip 0 of node c with a share of {@code cores} %, signed as it would be. */
  private String running(String name, int cores, boolean offline, int priority) {
    Pod pod = ClusterFixture.create(client, share(name, cores), "c");
    String uid = pod.getMetadata().getUid();
    PodAllocation allocation =
        ClusterFixture.share(
            uid, "c", 0, "c-die-0", 4096, cores, offline ? new OfflineWork(1) : null);
    pod.getMetadata()
        .getAnnotations()
        .put(AnnotationKeys.ALLOCATION, ClusterFixture.signed(allocation));
    pod.getSpec().setPriority(priority);
    scheduler.podChanged(client.pods().inNamespace("default").resource(pod).update());
    return uid;
  }

  private PodManifest pending(String name, int cores) {
    return Fabric8Views.manifest(ClusterFixture.create(client, share(name, cores), null));
  }

  private PodManifest pendingOffline(String name, int cores) {
    PodBuilder pod = share(name, cores);
    pod.editMetadata().addToAnnotations(AnnotationKeys.PRIORITY, "offline").endMetadata();
    return Fabric8Views.manifest(ClusterFixture.create(client, pod, null));
  }

  /** A pod of one container with a share of {@code cores} % and 4 GiB. */
  private static PodBuilder share(String name, int cores) {
    return ClusterFixture.sharePod(name, "1", cores);
  }

  private boolean fits(PodManifest pod) throws SchedulingException {
    return scheduler.filter(pod, List.of("c")).get("c").fits();
  }

  private Set<String> victims(PodManifest preemptor, String... offered) throws SchedulingException {
    return victimsOn("c", preemptor, offered);
  }

  private Set<String> victimsOn(String node, PodManifest preemptor, String... offered)
      throws SchedulingException {
    Preemption preemption = scheduler.preemption(preemptor, node, List.of(offered));
    assertThat(preemption).isInstanceOf(Preemption.Victims.class);
    return ((Preemption.Victims) preemption).uids();
  }

  @Test
  void anOnlinePodEvictsTheFewestOfflinePodsAndNeverAnOnlineOne() throws Exception {
    String big = running("batch-big", 60, true, -100);
    String small = running("batch-small", 30, true, -100);
    String serving = running("serving", 10, false, 1000);
    PodManifest preemptor = pending("online", 50);
    assertThat(fits(preemptor)).isFalse();

    assertThat(victims(preemptor, big, small, serving, "no-vnpu-pod"))
        .as("one victim suffices; a pod without vNPUs is not the extender's to keep")
        .containsExactlyInAnyOrder(big, "no-vnpu-pod");
    assertThat(scheduler.preemption(preemptor, "c", List.of(small, serving)))
        .as("the small offline pod does not make room, and the online one is never a victim")
        .isInstanceOf(Preemption.Refused.class);
    assertThat(scheduler.preemption(pendingOffline("offline", 50), "c", List.of(big)))
        .isInstanceOf(Preemption.Refused.class);
    assertThat(scheduler.preemptionCandidates()).containsKeys("evicted", "spared", "online");
    await()
        .untilAsserted(
            () ->
                assertThat(
                        client.v1().events().inNamespace("default").list().getItems().stream()
                            .filter(e -> e.getInvolvedObject().getName().equals("online")))
                    .anyMatch(
                        e ->
                            e.getReason().equals("VnpuPreempting")
                                && e.getMessage().contains(big)
                                && e.getMessage().contains("node c")));
  }

  @Test
  void theVictimsChipsStayChargedUntilAllAreGoneThenThePlaceIsHeldForThePreemptor()
      throws Exception {
    String first = running("batch-1", 50, true, -100);
    String second = running("batch-2", 40, true, -100);
    PodManifest preemptor = pending("online", 90);
    PodManifest other = pending("other", 50);

    assertThat(victims(preemptor, first, second)).containsExactlyInAnyOrder(first, second);
    scheduler.podRemoved(first);
    assertThat(fits(other)).as("a victim's chips stay charged while the other one runs").isFalse();
    scheduler.podRemoved(second);
    assertThat(fits(other)).as("the room the victims made is held").isFalse();
    assertThat(fits(preemptor)).as("for the preemptor").isTrue();

    scheduler.reserve(preemptor, "c").join();
    assertThat(scheduler.placements()).containsOnlyKeys(preemptor.uid());
  }

  /**
   * On the real control plane the victims' pods were gone before their node stopped charging what
   * they had held there (the hand-out records the device plugin clears a moment later): the held
   * place did not fit, the hold was dropped, and a ReplicaSet's replacements took the room the
   * evictions made for the preemptor. The victims now stay charged, and the hold waits, until the
   * place fits.
   */
  @Test
  void whenTheVictimsAreGoneBeforeTheNodeHasTheirRoomTheHoldWaitsAndKeepsTheRoom()
      throws Exception {
    String victim = running("batch", 70, true, -100);
    PodManifest preemptor = pending("online", 90);
    PodManifest other = pending("other", 50);
    assertThat(victims(preemptor, victim)).containsExactly(victim);
    String late = running("late", 20, false, 1000);

    scheduler.podRemoved(victim);
    assertThat(fits(other)).as("the room stays held while the place cannot be charged").isFalse();

    scheduler.podRemoved(late);
    assertThat(scheduler.placements())
        .containsOnlyKeys(ChargeKey.preemptorPlace(preemptor.uid()).ledgerKey());
    assertThat(fits(preemptor)).isTrue();
    assertThat(fits(other)).isFalse();
  }

  /**
   * On the real control plane, while the rebalancer's victims went, kube-scheduler placed the
   * ReplicaSet's replacements on the free chips of the very node whose whole chips the pending pod
   * was to get: only the victims' chips were kept. Every other pod now sees a node with a waiting
   * hold as it will be, the victims gone and the preemptor's place taken.
   */
  @Test
  void whileTheVictimsGoNoOtherPodTakesThePartOfTheHeldPlaceTheyDidNotHold() throws Exception {
    ClusterFixture.create(client, ClusterFixture.node("d", 2, null));
    scheduler.nodeChanged(client.nodes().withName("d").get());
    Pod batch = ClusterFixture.create(client, share("batch", 50), "d");
    String victim = batch.getMetadata().getUid();
    batch
        .getMetadata()
        .getAnnotations()
        .put(
            AnnotationKeys.ALLOCATION,
            ClusterFixture.signed(
                ClusterFixture.share(victim, "d", 0, "d-die-0", 4096, 50, new OfflineWork(1))));
    batch.getSpec().setPriority(-100);
    scheduler.podChanged(client.pods().inNamespace("default").resource(batch).update());
    PodManifest whole =
        Fabric8Views.manifest(
            ClusterFixture.create(client, ClusterFixture.wholeCardsPod("whole", "1", 2), null));
    PodManifest other =
        Fabric8Views.manifest(
            ClusterFixture.create(client, ClusterFixture.wholeCardPod("other", "1"), null));
    assertThat(scheduler.filter(other, List.of("d")).get("d").fits()).isTrue();

    assertThat(victimsOn("d", whole, victim)).containsExactly(victim);

    assertThat(scheduler.filter(other, List.of("d")).get("d").fits())
        .as("chip 1 is part of the place held for pod whole")
        .isFalse();
    scheduler.podRemoved(victim);
    assertThat(scheduler.filter(whole, List.of("d")).get("d").fits()).isTrue();
    assertThat(scheduler.filter(other, List.of("d")).get("d").fits()).isFalse();
  }

  /**
   * Seen once in CI on the real control plane (VolcanoFidelityTest): the victim was gone while its
   * node's locks still recorded its hand-out. The check that the place fits left out that the
   * record charges the victim's vNPUs once the victim is released; the charge that followed was
   * refused ("node c changed; its place is not held"), the hold was dropped, and Volcano's next
   * session evicted a second victim. The hold now waits for the record to be settled.
   */
  @Test
  void aVictimsHandOutStillRecordedOnItsNodeKeepsTheHoldWaitingUntilItIsSettled() throws Exception {
    PodManifest first = pendingOffline("batch-1", 40);
    PodManifest second = pendingOffline("batch-2", 40);
    scheduler.reserve(first, "c").join();
    scheduler.reserve(second, "c").join();
    // batch-2's entry, of the same shape, still waits: the hand-out is recorded (ADR 0013); then
    // batch-2's, alike to batch-1's record. Neither holder is known yet.
    String nonce = handedOutAndBound("batch-1");
    handedOutAndBound("batch-2");
    PodManifest preemptor = pending("online", 50);
    PodManifest other = pending("other", 30);
    assertThat(victims(preemptor, first.uid())).containsExactly(first.uid());

    scheduler.podRemoved(first.uid());
    assertThat(fits(other)).as("the record keeps the victim's room charged").isFalse();
    assertThat(scheduler.placements())
        .as("the place waits for the record")
        .doesNotContainKey(ChargeKey.preemptorPlace(preemptor.uid()).ledgerKey());

    assertThat(new NodeLocks(client, ClusterFixture.CODEC).settled("c", nonce)).isTrue();
    scheduler.locksChanged(ClusterFixture.locks(client, "c"));
    assertThat(scheduler.placements())
        .as("the record settled, the place is held for the preemptor")
        .containsOnlyKeys(ChargeKey.preemptorPlace(preemptor.uid()).ledgerKey(), second.uid());
    assertThat(fits(other)).isFalse();
    assertThat(fits(preemptor)).isTrue();
  }

  /**
   * What the device plugin and the binding do for the reserved pod {@code name}: its last container
   * handed out (the lock entry becomes a hand-out record whose holder the plugin has not learnt
   * yet, so the scheduler cannot settle it), the pod bound and running at priority -100. Returns
   * the record's nonce.
   */
  private String handedOutAndBound(String name) {
    NodeLocks locks = new NodeLocks(client, ClusterFixture.CODEC);
    Pod pod = client.pods().inNamespace("default").withName(name).get();
    String uid = pod.getMetadata().getUid();
    NodeLock entry = locks.current("c").of(uid).orElseThrow();
    PodRef ref = new PodRef(uid, "default", name);
    HandoutRecord record =
        new HandoutRecord(
            entry.nonce(),
            entry.shape(),
            ref,
            pod.getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION),
            "main",
            List.of("vnpu-0"),
            clock.instant(),
            null);
    assertThat(locks.lastHandedOut("c", uid, record, clock.instant())).isTrue();
    pod.getSpec().setNodeName("c");
    pod.getSpec().setPriority(-100);
    scheduler.podChanged(client.pods().inNamespace("default").resource(pod).update());
    scheduler.locksChanged(ClusterFixture.locks(client, "c"));
    return entry.nonce();
  }

  @Test
  void aHeldPlaceEndsWithItsTime() throws Exception {
    String victim = running("batch", 90, true, -100);
    PodManifest preemptor = pending("online", 90);
    PodManifest other = pending("other", 90);
    assertThat(victims(preemptor, victim)).containsExactly(victim);
    scheduler.podRemoved(victim);
    assertThat(fits(other)).isFalse();
    assertThat(scheduler.placements())
        .containsOnlyKeys(ChargeKey.preemptorPlace(preemptor.uid()).ledgerKey());

    clock.advance(PreemptionHolds.HOLD.plus(Duration.ofSeconds(1)));
    scheduler.expireReservations();
    assertThat(scheduler.placements()).as("the held place is released").isEmpty();
  }

  @Test
  void aPreemptorIsPipelinedIntoItsHeldPlaceOnlyOnceItsVictimsAreEvicted() throws Exception {
    String batch = running("batch", 70, true, -100);
    PodManifest urgent = pending("urgent", 60);
    assertThat(victims(urgent, batch)).containsExactly(batch);

    // Volcano 1.14 asks which pods are preemptable, then evicts none (the node's vNPU resources
    // suffice in sum) and pipelines the preemptor: no room is coming, so the pipeline is refused.
    assertThatThrownBy(() -> scheduler.pipeline(urgent, "c"))
        .isInstanceOf(SchedulingException.class)
        .hasMessageContaining("AI Core");

    scheduler.evicting(batch); // Statement.Evict: deallocateFunc with the victim Releasing
    scheduler.pipeline(urgent, "c"); // accepted: the room is coming
    scheduler.podRemoved(batch);
    assertThat(fits(urgent)).as("and the place is its own once the victim is gone").isTrue();
  }
}
