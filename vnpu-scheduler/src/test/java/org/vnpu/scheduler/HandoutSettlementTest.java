package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.BindPhase;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.PendingContainers;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.PodRef;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.core.request.PodManifest;
import org.vnpu.kube.AnnotationPatches;
import org.vnpu.kube.NodeLocks;
import org.vnpu.testkit.MutableClock;

/**
 * Interchangeable pods on one node (ADR 0013): reserved together, handed out crosswise by the
 * device plugin, settled by the scheduler so that every pod's annotation names the chips it runs
 * on, with no chip under-counted on the way.
 */
@EnableKubernetesMockClient(crud = true)
class HandoutSettlementTest {

  private static final PayloadCodec CODEC = ClusterFixture.CODEC;

  KubernetesClient client;

  private final MutableClock clock = new MutableClock(Instant.now());
  private Scheduler scheduler;
  private NodeLocks locks;

  @BeforeEach
  void cluster() {
    ClusterFixture.create(client, ClusterFixture.node("c", 4, "64"));
    scheduler = ClusterFixture.scheduler(client, clock);
    scheduler.rebuild();
    locks = new NodeLocks(client, CODEC);
  }

  private PodManifest pod(String name) {
    return Fabric8Views.manifest(
        ClusterFixture.create(client, ClusterFixture.sharePod(name, "1"), null));
  }

  private Pod stored(String name) {
    return client.pods().inNamespace("default").withName(name).get();
  }

  private SignedAllocation allocation(String name) {
    return CODEC.decodeAllocation(
        stored(name).getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION));
  }

  /** What the device plugin does after the last container of {@code signedFor}'s allocation. */
  /** The device plugin found that pod {@code holder} holds the hand-out of {@code reserved}. */
  private void heldBy(SignedAllocation reserved, String holder) {
    locks.resolved(
        "c", locks.current("c"), Set.of(), Map.of(reserved.nonce(), ref(holder)), Set.of());
  }

  private void handedOut(String signedFor, String device) {
    Pod pod = stored(signedFor);
    NodeLock entry = locks.current("c").of(pod.getMetadata().getUid()).orElseThrow();
    HandoutRecord record =
        new HandoutRecord(
            entry.nonce(),
            entry.shape(),
            ref(signedFor),
            pod.getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION),
            "main",
            List.of(device),
            clock.instant(),
            null);
    assertThat(locks.lastHandedOut("c", entry.podUid(), record, clock.instant())).isTrue();
    new AnnotationPatches(client)
        .pod(
            "default",
            signedFor,
            Map.of(
                AnnotationKeys.DEVICES_TO_ALLOCATE,
                CODEC.encodePending(new PendingContainers(List.of())),
                AnnotationKeys.BIND_PHASE,
                BindPhase.SUCCESS.wireName()));
  }

  private PodRef ref(String name) {
    return new PodRef(stored(name).getMetadata().getUid(), "default", name);
  }

  private void locksChanged() {
    scheduler.locksChanged(ClusterFixture.locks(client, "c"));
  }

  @Test
  void podsOfOneShapeHandedOutCrosswiseEndUpNamingTheChipsTheyRunOn() throws Exception {
    PodManifest a = pod("a");
    PodManifest b = pod("b");
    scheduler.reserve(a, "c").join();
    scheduler.reserve(b, "c").join();
    locksChanged(); // the informer delivers the Lease with both entries
    assertThat(scheduler.lockRefusals()).isZero();
    SignedAllocation reservedForA = allocation("a");
    SignedAllocation reservedForB = allocation("b");
    Map<String, PodAllocation> before = placements();

    // The kubelet admitted b first and got a's reservation, then a got b's.
    handedOut("a", "d-1");
    handedOut("b", "d-2");
    heldBy(reservedForA, "b");
    heldBy(reservedForB, "a");
    locksChanged();
    scheduler.settleHandouts();

    SignedAllocation nowA = allocation("a");
    SignedAllocation nowB = allocation("b");
    assertThat(nowA.nonce()).isEqualTo(reservedForB.nonce());
    assertThat(nowA.allocation().containers()).isEqualTo(reservedForB.allocation().containers());
    assertThat(nowA.allocation().podUid()).isEqualTo(a.uid());
    assertThat(nowB.nonce()).isEqualTo(reservedForA.nonce());
    assertThat(nowB.allocation().containers()).isEqualTo(reservedForA.allocation().containers());
    assertThat(ClusterFixture.VERIFIER.verifies(nowA)).isTrue();
    assertThat(ClusterFixture.VERIFIER.verifies(nowB)).isTrue();
    assertThat(stored("b").getMetadata().getAnnotations())
        .containsEntry(AnnotationKeys.BIND_PHASE, "success");
    assertThat(ClusterFixture.locks(client, "c").getMetadata().getAnnotations()).isNullOrEmpty();
    assertThat(placements().get(a.uid()).containers()).isEqualTo(before.get(b.uid()).containers());
    assertThat(placements().get(b.uid()).containers()).isEqualTo(before.get(a.uid()).containers());

    // Settling again changes nothing.
    scheduler.settleHandouts();
    assertThat(allocation("a")).isEqualTo(nowA);
  }

  @Test
  void aHandoutStaysChargedWhenThePodItWasSignedForIsDeletedBeforeItsHolderIsKnown()
      throws Exception {
    PodManifest a = pod("a");
    PodManifest b = pod("b");
    SignedAllocation reservedForA = handedOutToBThenDeleted(a, b);

    assertThat(scheduler.placements())
        .as("a's allocation runs in b; it stays charged on its record")
        .containsKey("handout:" + reservedForA.nonce());

    heldByBOnceItsOwnReservationWent(reservedForA, b);
    scheduler.settleHandouts();
    locksChanged();

    assertThat(allocation("b").nonce()).isEqualTo(reservedForA.nonce());
    assertThat(scheduler.placements()).containsOnlyKeys(b.uid());
    assertThat(scheduler.placements().get(b.uid()).allocation().containers())
        .isEqualTo(reservedForA.allocation().containers());
  }

  @Test
  void anAllocationItsHolderForgedIsNeverSignedForAnotherPod() throws Exception {
    PodManifest a = pod("a");
    PodManifest b = pod("b");
    scheduler.reserve(a, "c").join();
    scheduler.reserve(b, "c").join();
    locksChanged(); // the informer delivers the Lease with both entries
    SignedAllocation reservedForA = allocation("a");
    SignedAllocation reservedForB = allocation("b");
    handedOut("a", "d-1"); // the kubelet was admitting b
    // b's owner puts a whole chip, signed with a key of their own, on b before the settlement.
    PodAllocation wanted =
        new PodAllocation(
            b.uid(),
            "c",
            List.of(
                new ContainerAllocation(
                    "main",
                    false,
                    List.of(
                        new VnpuAssignment(
                            3,
                            "DIE-c-3",
                            "910B3",
                            65536,
                            100,
                            SplitMode.SOFT,
                            true,
                            null,
                            null)))));
    SignedAllocation forged =
        new AllocationSigner(SigningKey.generate(), CODEC).sign(wanted, reservedForB.nonce());
    new AnnotationPatches(client)
        .pod("default", "b", Map.of(AnnotationKeys.ALLOCATION, CODEC.encodeAllocation(forged)));
    locks.release("c", b.uid());
    heldBy(reservedForA, "b");
    locksChanged();
    scheduler.settleHandouts();

    assertThat(allocation("a").allocation().containers())
        .as("a keeps what the scheduler signed, not b's forgery")
        .isEqualTo(reservedForA.allocation().containers());
    assertThat(allocation("b").nonce()).isEqualTo(reservedForA.nonce());
    assertThat(scheduler.placements().values())
        .flatExtracting(plan -> plan.allocation().containers())
        .doesNotContain(wanted.containers().get(0));
  }

  @Test
  void aChainOfSwapsSettledInAnyOrderNeverLeavesAChipInUseUncharged() throws Exception {
    Map<String, SignedAllocation> reserved = chainOfThree();
    SignedAllocation reservedForA = reserved.get("a");
    SignedAllocation reservedForB = reserved.get("b");
    SignedAllocation reservedForC = reserved.get("c");

    // The device plugin learns the holders one at a time; each is settled as it is learnt.
    settledAs(reservedForB, "a");
    assertEveryChipInUseChargedOnce();
    settledAs(reservedForA, "c");
    assertEveryChipInUseChargedOnce();
    settledAs(reservedForC, "b");
    assertEveryChipInUseChargedOnce();

    assertThat(allocation("a").nonce()).isEqualTo(reservedForB.nonce());
    assertThat(allocation("b").nonce()).isEqualTo(reservedForC.nonce());
    assertThat(allocation("c").nonce()).isEqualTo(reservedForA.nonce());
    assertThat(placements().get(allocation("c").allocation().podUid()).containers())
        .isEqualTo(reservedForA.allocation().containers());
  }

  @Test
  void aPodThatForgesItsAnnotationMidChainStillTradesAndLeavesNoChipUncharged() throws Exception {
    Map<String, SignedAllocation> reserved = chainOfThree();
    SignedAllocation reservedForA = reserved.get("a");
    SignedAllocation reservedForC = reserved.get("c");
    settledAs(reserved.get("b"), "a"); // b now carries a's reservation
    // b's owner replaces it with a whole chip of their choosing, signed with a key of their own.
    SignedAllocation forged =
        new AllocationSigner(SigningKey.generate(), CODEC)
            .sign(
                reservedForA.allocation().forPod(allocation("b").allocation().podUid()),
                reservedForA.nonce());
    new AnnotationPatches(client)
        .pod("default", "b", Map.of(AnnotationKeys.ALLOCATION, CODEC.encodeAllocation(forged)));

    settledAs(reservedForA, "c");

    assertThat(ClusterFixture.VERIFIER.verifies(allocation("b")))
        .as("the scheduler signs b's side of the trade over the forgery")
        .isTrue();
    assertEveryChipInUseChargedOnce();
    settledAs(reservedForC, "b");
    assertEveryChipInUseChargedOnce();
    assertThat(allocation("b").nonce()).isEqualTo(reservedForC.nonce());
    assertThat(allocation("c").nonce()).isEqualTo(reservedForA.nonce());
  }

  @Test
  void aHandoutChargedOnItsRecordPassesToItsHolderWithoutAMomentUncharged() throws Exception {
    PodManifest a = wholeCardPod("a");
    PodManifest b = wholeCardPod("b");
    SignedAllocation reservedForA = handedOutToBThenDeleted(a, b);
    heldByBOnceItsOwnReservationWent(reservedForA, b);

    scheduler.settleHandouts();

    assertThat(scheduler.placements())
        .as("b is charged with a's whole chip as soon as it is re-signed")
        .containsOnlyKeys(b.uid());
    assertThat(placements().get(b.uid()).containers())
        .isEqualTo(reservedForA.allocation().containers());
  }

  /**
   * Whole-card pods a, b and c are reserved, and the kubelet admitted c on a's reservation, a on
   * b's and b on c's. Returns each pod's reservation, by name.
   */
  private Map<String, SignedAllocation> chainOfThree() throws SchedulingException {
    Map<String, SignedAllocation> reserved = new java.util.HashMap<>();
    for (String name : List.of("a", "b", "c")) {
      scheduler.reserve(wholeCardPod(name), "c").join();
      reserved.put(name, allocation(name));
    }
    handedOut("a", "d-1");
    handedOut("b", "d-2");
    handedOut("c", "d-3");
    return reserved;
  }

  /** The device plugin learns that {@code holder} holds {@code reserved}'s hand-out; it settles. */
  private void settledAs(SignedAllocation reserved, String holder) {
    heldBy(reserved, holder);
    locksChanged();
    scheduler.settleHandouts();
  }

  /**
   * a and b are reserved; the kubelet admits b on a's reservation, and a is deleted before the
   * holder is known. Returns a's reservation.
   */
  private SignedAllocation handedOutToBThenDeleted(PodManifest a, PodManifest b)
      throws SchedulingException {
    scheduler.reserve(a, "c").join();
    scheduler.reserve(b, "c").join();
    locksChanged(); // the informer delivers the Lease with both entries
    SignedAllocation reservedForA = allocation("a");
    handedOut("a", "d-1");
    locksChanged();
    client.pods().inNamespace("default").withName("a").delete();
    scheduler.podRemoved(a.uid());
    return reservedForA;
  }

  /** b's own reservation expires unused; the device plugin finds b holds a's hand-out. */
  private void heldByBOnceItsOwnReservationWent(SignedAllocation reservedForA, PodManifest b) {
    locks.release("c", b.uid());
    heldBy(reservedForA, "b");
    locksChanged();
  }

  private PodManifest wholeCardPod(String name) {
    return Fabric8Views.manifest(
        ClusterFixture.create(client, ClusterFixture.wholeCardPod(name, "1"), null));
  }

  /**
   * Every whole chip a pod's annotation names is charged to the ledger, by that pod, and no two
   * pods' annotations name the same one.
   */
  private void assertEveryChipInUseChargedOnce() {
    Map<String, Integer> named = new java.util.HashMap<>();
    Map<String, Integer> charged = new java.util.HashMap<>();
    for (String pod : List.of("a", "b", "c")) {
      SignedAllocation signed = allocation(pod);
      named.put(pod, signed.allocation().containers().get(0).vnpus().get(0).chipIndex());
      PodAllocation plan = placements().get(signed.allocation().podUid());
      if (plan != null) {
        charged.put(pod, plan.containers().get(0).vnpus().get(0).chipIndex());
      }
    }
    assertThat(Set.copyOf(named.values())).as("chips the annotations name: %s", named).hasSize(3);
    assertThat(charged).as("chips charged by pod").isEqualTo(named);
  }

  private Map<String, PodAllocation> placements() {
    Map<String, PodAllocation> byUid = new java.util.HashMap<>();
    scheduler.placements().forEach((uid, plan) -> byUid.put(uid, plan.allocation()));
    return byUid;
  }
}
