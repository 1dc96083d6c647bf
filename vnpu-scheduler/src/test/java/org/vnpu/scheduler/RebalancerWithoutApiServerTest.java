package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.ledger.ChargeKey;
import org.vnpu.testkit.MutableClock;

/**
 * The rebalancer over the scheduler's state and its ports alone: nodes a, b and c of two 910B3
 * chips, each with one offline share of a ReplicaSet on chip 0, and a pending job of two whole
 * cards that no node takes until a share moves. Pods are listed and evicted by {@link
 * InMemoryEvictions}, events go to a list; no API server runs.
 */
class RebalancerWithoutApiServerTest {

  private final MutableClock clock = new MutableClock(Instant.now());
  private final RecordedEvents events = new RecordedEvents();
  private final SchedulerCounters counters = new SchedulerCounters();
  private final InMemoryEvictions evictions = new InMemoryEvictions();
  private SchedulerState state;
  private ClusterIntake intake;
  private Pod job;

  @BeforeEach
  void sharesAndAPendingJob() {
    state =
        new SchedulerState(
            ChipCatalog.builtIn(), ClusterFixture.CODEC, SchedulerSettings.defaults(), clock);
    intake =
        new ClusterIntake(
            state, ClusterFixture.VERIFIER, ClusterFixture.CODEC, new InMemoryCluster());
    for (String node : List.of("a", "b", "c")) {
      intake.nodeChanged(ClusterFixture.node(node, 2, null));
      running("share-" + node, node);
    }
    job =
        ClusterFixture.wholeCardsPod("job", "1", 2)
            .editMetadata()
            .withCreationTimestamp(clock.instant().toString())
            .endMetadata()
            .withNewStatus()
            .withPhase("Pending")
            .endStatus()
            .build();
    evictions.add(job);
    intake.podChanged(job);
    clock.advance(Duration.ofSeconds(90)); // past pendingFor, within the heartbeat tolerance
  }

  @Test
  void aMoveHoldsThePendingPodsPlaceThenEvictsAndSaysSo() {
    RebalanceController.Decision decision = controller().pass().get(0);

    assertThat(decision.outcome()).isEqualTo("moved");
    String moved = decision.plan().moves().get(0).pod().podUid();
    assertThat(evictions.evicted())
        .containsExactly("default/" + decision.plan().moves().get(0).pod().request().name());
    assertThat(state.cluster().ledger().placements())
        .as("the moved pod stays charged until it is gone; its replacement's place is held")
        .containsKeys(moved, ChargeKey.replacement(moved).ledgerKey());
    assertThat(state.cluster().ledger().placements())
        .doesNotContainKey(ChargeKey.preemptorPlace(job.getMetadata().getUid()).ledgerKey());

    intake.podRemoved(moved); // the API server deletes an evicted pod
    assertThat(state.cluster().ledger().placements())
        .as("the place made for the job is held for it")
        .containsKey(ChargeKey.preemptorPlace(job.getMetadata().getUid()).ledgerKey());
    assertThat(events.said)
        .extracting(RecordedEvents.Said::reason)
        .containsExactly("rebalancing", "rebalanced");
    assertThat(counters.rebalance()).containsEntry("moves\nexecute", 1L);
  }

  @Test
  void aDisruptionBudgetThatRefusesCancelsThePlanAndEveryHold() {
    evictions.budgetRefuses();

    RebalanceController.Decision decision = controller().pass().get(0);

    assertThat(decision.outcome()).isEqualTo("disruption-budget");
    assertThat(evictions.evicted()).isEmpty();
    assertThat(state.cluster().ledger().placements().keySet())
        .as("no place stays held for a plan that will not happen")
        .noneMatch(key -> key.contains(":"));
    assertThat(events.said)
        .extracting(RecordedEvents.Said::reason)
        .containsExactly("rebalancing", "rebalanceRefused");
    assertThat(counters.rebalance()).containsEntry("refusals\ndisruption-budget", 1L);
  }

  private RebalanceController controller() {
    RebalanceSettings defaults = RebalanceSettings.defaults();
    return new RebalanceController(
        evictions,
        new StateRebalancing(state, counters),
        new RebalanceSettings(
            RebalanceMode.EXECUTE,
            Duration.ofSeconds(10),
            Duration.ofMinutes(1),
            0,
            3,
            6,
            2,
            1,
            Duration.ofMinutes(1),
            defaults.marks(),
            defaults.hotFor(),
            defaults.holdFor()),
        clock,
        events,
        true);
  }

  /** An offline share of 10 % on chip 0 of {@code node}, owned by its own ReplicaSet, running. */
  private void running(String name, String node) {
    Pod pod =
        new PodBuilder(ClusterFixture.sharePod(name, "1").build())
            .editMetadata()
            .withAnnotations(new HashMap<>())
            .addToAnnotations(AnnotationKeys.PRIORITY, "offline")
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("apps/v1")
                    .withKind("ReplicaSet")
                    .withName("rs-" + name)
                    .withUid("rs-" + name)
                    .withController(true)
                    .build())
            .endMetadata()
            .editSpec()
            .withNodeName(node)
            .endSpec()
            .withNewStatus()
            .withPhase("Running")
            .withStartTime(clock.instant().toString())
            .endStatus()
            .build();
    PodAllocation allocation =
        ClusterFixture.share(
            pod.getMetadata().getUid(), node, 0, node + "-die-0", 4096, 10, new OfflineWork(1));
    pod.getMetadata()
        .getAnnotations()
        .put(AnnotationKeys.ALLOCATION, ClusterFixture.signed(allocation));
    evictions.add(pod);
    intake.podChanged(pod);
  }
}
