package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.vnpu.kube.NodeBook;

/**
 * The steps of kube-scheduler's preemption that the sandbox's cycles rarely reach, each against the
 * upstream function it follows ({@code plugins/defaultpreemption/default_preemption.go}, {@code
 * framework/preemption/preemption.go}): every test fails when its step is skipped.
 */
class KubePreemptionTest {

  private static final KubeSchedulerCycle.Filtered NOTHING_UNRESOLVABLE =
      new KubeSchedulerCycle.Filtered(List.of(), Map.of(), Set.of(), null);

  @Test
  void aStartTimeThatDoesNotParseCountsAsNoneInsteadOfEndingTheRound() {
    Instant before = Instant.now();

    Instant read = KubePreemption.startTime(started("victim", "yesterday, around noon"));

    assertThat(read).isAfterOrEqualTo(before);
  }

  @Test
  void aStartTimeIsReadAsWritten() {
    assertThat(KubePreemption.startTime(started("victim", "2026-12-02T10:00:00Z")))
        .isEqualTo(Instant.parse("2026-12-02T10:00:00Z"));
  }

  // PodEligibleToPreemptOthers

  @Test
  void aPodWaitsWhileALowerPriorityPodItsPreemptionDeletesLeavesItsNominatedNode() {
    Pod preemptor = nominated(pod("online", 1000), "n1");
    Pod leaving = terminatingBy(onNode(pod("offline", 0), "n1"), "PreemptionByScheduler");

    assertThat(KubePreemption.ineligible(preemptor, books(leaving), NOTHING_UNRESOLVABLE))
        .isEqualTo("not eligible due to a terminating pod on the nominated node.");
  }

  @Test
  void aPodWhoseNominatedNodeTheFiltersFindUnresolvablePreemptsAgain() {
    Pod preemptor = nominated(pod("online", 1000), "n1");
    Pod leaving = terminatingBy(onNode(pod("offline", 0), "n1"), "PreemptionByScheduler");
    KubeSchedulerCycle.Filtered unresolvable =
        new KubeSchedulerCycle.Filtered(List.of(), Map.of(), Set.of("n1"), null);

    assertThat(KubePreemption.ineligible(preemptor, books(leaving), unresolvable)).isNull();
  }

  @Test
  void onlyAPreemptionsDeletionOfALowerPriorityPodOnTheNominatedNodeHoldsAPodBack() {
    Pod preemptor = nominated(pod("online", 1000), "n1");
    Pod evictedForATaint = terminatingBy(onNode(pod("tainted", 0), "n1"), "DeletionByTaintManager");
    Pod higherLeaving = terminatingBy(onNode(pod("critical", 2000), "n1"), "PreemptionByScheduler");
    Pod elsewhere = terminatingBy(onNode(pod("other", 0), "n2"), "PreemptionByScheduler");
    Pod deletedWithoutCondition = onNode(pod("plain", 0), "n1");
    deletedWithoutCondition.getMetadata().setDeletionTimestamp("2026-12-02T10:00:00Z");

    assertThat(
            KubePreemption.ineligible(
                preemptor,
                books(evictedForATaint, higherLeaving, elsewhere, deletedWithoutCondition),
                NOTHING_UNRESOLVABLE))
        .isNull();
  }

  @Test
  void aPodThatMayNeverPreemptIsNotEligible() {
    Pod never = pod("online", 1000);
    never.getSpec().setPreemptionPolicy("Never");

    assertThat(KubePreemption.ineligible(never, books(), NOTHING_UNRESOLVABLE))
        .isEqualTo("not eligible due to preemptionPolicy=Never.");
  }

  // pickOneNodeForPreemption: each criterion decides where every earlier one ties

  @Test
  void theNodeWhoseMostImportantVictimMattersLeastIsPickedFirst() {
    KubePreemption.Candidate fewerButHigher = candidate("a", pod("v1", 500));
    KubePreemption.Candidate moreButLower = candidate("b", pod("v2", 100), pod("v3", 100));

    assertPicks(moreButLower, fewerButHigher, moreButLower);
  }

  @Test
  void thenTheLowestSumOfPrioritiesThoughItTakesMoreVictims() {
    KubePreemption.Candidate threeVictims =
        candidate("a", pod("v1", 0), pod("v2", -100), pod("v3", Integer.MIN_VALUE));
    KubePreemption.Candidate twoVictims = candidate("b", pod("v4", 0), pod("v5", 0));

    assertPicks(threeVictims, twoVictims, threeVictims);
  }

  @Test
  void eachPriorityCountsInTheSumFromTheLeastPriorityUp() {
    // Each victim's priority counts from Integer.MIN_VALUE up (MaxInt32 + 1 added): a second
    // victim of the least priority adds nothing, so the sums tie and the fewer victims decide
    // (the next criterion). A plain sum would pick "a", whose second victim makes it lower.
    KubePreemption.Candidate twoVictims =
        candidate("a", pod("v1", 0), pod("v2", Integer.MIN_VALUE));
    KubePreemption.Candidate oneVictim = candidate("b", pod("v3", 0));
    KubePreemption.Candidate higherSum = candidate("c", pod("v4", 0), pod("v5", -5));

    assertPicks(oneVictim, twoVictims, higherSum, oneVictim);
  }

  @Test
  void thenTheNodeWhoseHighestPriorityVictimsStartedLatest() {
    KubePreemption.Candidate older =
        candidate("a", started(pod("v1", 100), "2026-12-02T09:00:00Z"), pod("v2", 0, "09:30:00"));
    KubePreemption.Candidate newer =
        candidate("b", started(pod("v3", 100), "2026-12-02T10:00:00Z"), pod("v4", 0, "08:00:00"));

    assertPicks(newer, older, newer);
  }

  @Test
  void andOtherwiseTheFirst() {
    KubePreemption.Candidate first = candidate("a", pod("v1", 0, "10:00:00"));
    KubePreemption.Candidate second = candidate("b", pod("v2", 0, "10:00:00"));

    assertPicks(first, first, second);
  }

  private static void assertPicks(
      KubePreemption.Candidate expected, KubePreemption.Candidate... candidates) {
    assertThat(KubePreemption.pickOneNodeForPreemption(List.of(candidates))).isSameAs(expected);
  }

  // prepareCandidate

  @Test
  void preparingEvictsTheVictimsAndTakesLowerPriorityNominationsOffTheNode() throws Exception {
    try (ApiServer api = ApiServer.start(0)) {
      KubernetesClient client = api.client();
      Pod victim = create(client, onNode(pod("offline", 0), "n1"));
      Pod leaving = onNode(pod("leaving", 0), "n1");
      leaving.getMetadata().setFinalizers(List.of("example.com/keep"));
      leaving = create(client, leaving);
      client.resource(leaving).delete();
      leaving = client.pods().inNamespace("default").withName("leaving").get();
      Pod lowerNominated = create(client, nominated(pod("batch", 10), "n1"));
      Pod higherNominated = create(client, nominated(pod("critical", 5000), "n1"));
      Pod preemptor = create(client, pod("online", 1000));
      KubePreemption preemption = new KubePreemption(null, client, (pod, node) -> Map.of());

      preemption.prepare(
          preemptor,
          new KubePreemption.Candidate("n1", List.of(victim, leaving)),
          books(victim, leaving, lowerNominated, higherNominated));

      assertThat(client.pods().inNamespace("default").withName("offline").get()).isNull();
      assertThat(
              client
                  .pods()
                  .inNamespace("default")
                  .withName("leaving")
                  .get()
                  .getStatus()
                  .getConditions())
          .as("a victim already being deleted is left alone (PreemptPod)")
          .isEmpty();
      assertThat(nomination(client, "batch")).isNull();
      assertThat(nomination(client, "critical")).isEqualTo("n1");
      assertThat(client.v1().events().inNamespace("default").list().getItems())
          .anySatisfy(
              event -> {
                assertThat(event.getReason()).isEqualTo("Preempted");
                assertThat(event.getInvolvedObject().getName()).isEqualTo("offline");
              });
    }
  }

  private static String nomination(KubernetesClient client, String name) {
    return client
        .pods()
        .inNamespace("default")
        .withName(name)
        .get()
        .getStatus()
        .getNominatedNodeName();
  }

  private static Pod create(KubernetesClient client, Pod pod) {
    return client.resource(pod).create();
  }

  private static Collection<NodeBook> books(Pod... pods) {
    List<Node> nodes = new ArrayList<>();
    for (String name : List.of("n1", "n2")) {
      nodes.add(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build());
    }
    return NodeBook.of(nodes, Arrays.asList(pods)).values();
  }

  private static KubePreemption.Candidate candidate(String node, Pod... victims) {
    return new KubePreemption.Candidate(node, List.of(victims));
  }

  private static Pod pod(String name, int priority) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .withUid("uid-" + name)
        .endMetadata()
        .withNewSpec()
        .withPriority(priority)
        .endSpec()
        .withNewStatus()
        .endStatus()
        .build();
  }

  private static Pod pod(String name, int priority, String startedAtUtc) {
    return started(pod(name, priority), "2026-12-02T" + startedAtUtc + "Z");
  }

  private static Pod started(Pod pod, String startTime) {
    pod.getStatus().setStartTime(startTime);
    return pod;
  }

  private static Pod started(String name, String startTime) {
    return started(pod(name, 0), startTime);
  }

  private static Pod onNode(Pod pod, String node) {
    pod.getSpec().setNodeName(node);
    return pod;
  }

  private static Pod nominated(Pod pod, String node) {
    pod.getStatus().setNominatedNodeName(node);
    return pod;
  }

  private static Pod terminatingBy(Pod pod, String reason) {
    pod.getMetadata().setDeletionTimestamp("2026-12-02T10:00:00Z");
    pod.getStatus()
        .setConditions(List.of(PodWrites.condition("DisruptionTarget", "True", reason, "")));
    return pod;
  }
}
