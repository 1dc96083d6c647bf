package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.request.PodManifest;
import org.vnpu.testkit.MutableClock;

/**
 * The filter, explanations and preemption decide over the scheduler's state alone: nodes and pods
 * are fed as the informers feed them, events go to a list, and no API server (not even a mock)
 * runs.
 */
class DecisionsWithoutApiServerTest {

  private final MutableClock clock = new MutableClock(Instant.now());
  private final RecordedEvents events = new RecordedEvents();
  private final SchedulerCounters counters = new SchedulerCounters();
  private SchedulerState state;
  private NodeJudge judge;
  private PreemptionAdvisor preemptions;

  @BeforeEach
  void feedTheState() {
    state =
        new SchedulerState(
            ChipCatalog.builtIn(), new PayloadCodec(), SchedulerSettings.defaults(), clock);
    judge = new NodeJudge(state, counters, events);
    preemptions = new PreemptionAdvisor(state, counters, events);
    state.cluster().nodeChanged(Fabric8Views.seen(ClusterFixture.node("one", 1, null)));
    state.cluster().nodeChanged(Fabric8Views.seen(ClusterFixture.node("two", 2, null)));
  }

  @Test
  void aLockLeaseSeenBeforeItsNodeHoldsTheNodeOnceTheNodeComesAndGoesWithTheLease() {
    NodeLock entry =
        new NodeLock(
            "uid-x",
            "default",
            "x",
            clock.instant(),
            clock.instant().plusSeconds(60),
            "nonce-x",
            "shape-x",
            List.of(1),
            0);
    state.cluster().locksChanged("three", new NodeLockSet(List.of(entry), List.of()), List.of());
    state.cluster().nodeChanged(Fabric8Views.seen(ClusterFixture.node("three", 1, null)));

    assertThat(state.cluster().ledger().node("three").orElseThrow().locks().holders())
        .containsExactly(entry);

    state.cluster().locksRemoved("three");
    state.cluster().nodeChanged(Fabric8Views.seen(ClusterFixture.node("three", 2, null)));
    assertThat(state.cluster().ledger().node("three").orElseThrow().locks().holders()).isEmpty();
  }

  @Test
  void theFilterSaysWhichNodesFitAndWhyTheOthersDoNot() throws Exception {
    PodManifest pod = manifest(ClusterFixture.wholeCardsPod("pair", "1", 2).build());

    Map<String, Verdict> verdicts =
        judge.filter(pod, List.of("one", "two", "cpu-only"), noneLeaving());

    assertThat(verdicts.get("two").fits()).isTrue();
    assertThat(verdicts.get("one").fits()).isFalse();
    assertThat(verdicts.get("one").reason()).isNotBlank();
    assertThat(verdicts.get("cpu-only").reason()).contains("no vNPU inventory");
    assertThat(verdicts.get("cpu-only").unresolvable()).isTrue();
    assertThat(events.said).isEmpty();
  }

  @Test
  void aPodThatFitsNowhereIsToldWhyAndTheReasonsAreCounted() throws Exception {
    PodManifest pod = manifest(ClusterFixture.wholeCardsPod("three", "1", 3).build());

    Map<String, Verdict> verdicts = judge.filter(pod, List.of("one", "two"), noneLeaving());

    assertThat(verdicts.values()).noneMatch(Verdict::fits);
    assertThat(events.said).hasSize(1);
    RecordedEvents.Said said = events.said.get(0);
    assertThat(said.reason() + " " + said.pod()).isEqualTo("unschedulable three");
    assertThat(counters.rejections().values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(2);
    Explanation explanation = judge.explain(pod, List.of("one", "two"));
    assertThat(explanation.unschedulable()).isEqualTo(said.message());
    assertThat(explanation.remedies()).containsOnlyKeys("one", "two");
    assertThat(events.said).hasSize(1); // an explanation records nothing
  }

  @Test
  void aRequestNamingANodeTwiceHasItJudgedAndCountedOnce() throws Exception {
    PodManifest pod = manifest(ClusterFixture.wholeCardsPod("three", "1", 3).build());

    Map<String, Verdict> verdicts =
        judge.filter(pod, List.of("one", "one", "two", "cpu-only", "cpu-only"), noneLeaving());

    assertThat(verdicts).containsOnlyKeys("one", "two", "cpu-only");
    assertThat(events.said).hasSize(1);
    assertThat(events.said.get(0).message())
        .startsWith("0/2 nodes fit")
        .endsWith("; 1 node(s) without a vNPU inventory");
  }

  @Test
  void anOnlinePodMayEvictTheOfflinePodOnItsChipAndItsPlaceIsHeld() throws Exception {
    String batch = running("batch", "one", 70, true);
    PodManifest urgent = manifest(share("urgent", 60));

    Preemption preemption = preemptions.preemption(urgent, "one", List.of(batch));

    assertThat(preemption).isEqualTo(new Preemption.Victims(Set.of(batch)));
    assertThat(events.said)
        .extracting(RecordedEvents.Said::reason, RecordedEvents.Said::pod)
        .containsExactly(tuple("preempting", "urgent"));
    assertThat(counters.preemptionCandidates()).containsEntry("evicted", 1L);
    assertThat(
            preemptions.preemption(
                manifest(ClusterFixture.plainPod("web", "1").build()), "one", List.of(batch)))
        .isInstanceOf(Preemption.Abstain.class);
  }

  /** A pod on chip 0 of {@code node} with a share of {@code cores} %, signed as it would be. */
  private String running(String name, String node, int cores, boolean offline) {
    Pod pod = share(name, cores);
    String uid = pod.getMetadata().getUid();
    PodAllocation allocation =
        ClusterFixture.share(
            uid, node, 0, node + "-die-0", 4096, cores, offline ? new OfflineWork(1) : null);
    pod.getMetadata()
        .getAnnotations()
        .put(AnnotationKeys.ALLOCATION, ClusterFixture.signed(allocation));
    pod.getSpec().setNodeName(node);
    Optional<SignedAllocation> signed =
        Optional.of(
            ClusterFixture.CODEC.decodeAllocation(
                pod.getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION)));
    state.cluster().podChanged(Fabric8Views.seen(pod), signed);
    return uid;
  }

  private static Pod share(String name, int cores) {
    return ClusterFixture.sharePod(name, "1", cores).build();
  }

  private static PodManifest manifest(Pod pod) {
    return Fabric8Views.manifest(pod);
  }

  private static Set<String> noneLeaving() {
    return Set.of();
  }
}
