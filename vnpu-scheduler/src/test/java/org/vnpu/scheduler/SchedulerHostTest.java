package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vnpu.scheduler.ClusterFixture.plainPod;
import static org.vnpu.scheduler.ClusterFixture.sharePod;
import static org.vnpu.scheduler.ClusterFixture.wholeCardPod;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.core.request.PodManifest;
import org.vnpu.kube.NodeLocks;

/**
 * The scheduler follows host CPU and memory as kube-scheduler counts them — nodes' allocatable, the
 * requests of every pod bound or reserved there — and lets them shape scores, never filters.
 */
@EnableKubernetesMockClient(crud = true)
class SchedulerHostTest {

  KubernetesClient client;

  private Scheduler scheduler;

  @BeforeEach
  void start() {
    scheduler = ClusterFixture.scheduler(client, Clock.systemUTC());
  }

  @Test
  void podsBoundToANodeTakeItsCpuFromTheScoresUntilTheyGo() throws Exception {
    node("a", 2, "16");
    node("b", 2, "16");
    Pod batch = create(plainPod("batch", "12"), "a");
    scheduler.rebuild();
    PodManifest share = Fabric8Views.manifest(create(sharePod("share", "8"), null));

    assertThat(scheduler.scores(share, List.of("a", "b"))).containsOnlyKeys("b");
    assertThat(scheduler.filter(share, List.of("a", "b")).values())
        .as("filters leave host resources to kube-scheduler and Volcano")
        .allMatch(Verdict::fits);

    scheduler.podRemoved(batch.getMetadata().getUid());
    assertThat(scheduler.scores(share, List.of("a", "b"))).containsOnlyKeys("a", "b");
  }

  @Test
  void aRuntimeClassPodsOverheadTakesCpuAsKubeSchedulersFitCountsIt() throws Exception {
    node("a", 2, "16");
    PodBuilder kata = plainPod("kata", "8");
    kata.editSpec().addToOverhead("cpu", new Quantity("1")).endSpec();
    create(kata, "a");
    scheduler.rebuild();
    PodManifest share = Fabric8Views.manifest(create(sharePod("share", "8"), null));

    assertThat(scheduler.scores(share, List.of("a")))
        .as("8 cores asked and 1 of overhead leave 7 of 16, short of the share's 8")
        .isEmpty();
  }

  @Test
  void aFinishedPodGivesItsCpuBack() throws Exception {
    node("a", 2, "16");
    Pod batch = create(plainPod("batch", "12"), "a");
    scheduler.rebuild();
    PodManifest share = Fabric8Views.manifest(create(sharePod("share", "8"), null));
    assertThat(scheduler.scores(share, List.of("a"))).isEmpty();

    batch.setStatus(new PodStatusBuilder().withPhase("Succeeded").build());
    scheduler.podChanged(batch);

    assertThat(scheduler.scores(share, List.of("a"))).containsOnlyKeys("a");
  }

  @Test
  void aReservationTakesThePodsCpuAtOnce() throws Exception {
    node("a", 2, "16");
    scheduler.rebuild();
    PodManifest first = Fabric8Views.manifest(create(sharePod("first", "12"), null));
    PodManifest second = Fabric8Views.manifest(create(sharePod("second", "8"), null));

    reserveAndUnlock(first, "a");

    assertThat(scheduler.scores(second, List.of("a"))).as("12 of 16 cores reserved").isEmpty();
    PodManifest small = Fabric8Views.manifest(create(sharePod("small", "2"), null));
    assertThat(scheduler.scores(small, List.of("a"))).containsOnlyKeys("a");
  }

  @Test
  void onceTheMixAsksCpuAShareGoesWhereTheHostCanStillFeedTheChips() throws Exception {
    node("teacher", 8, "200");
    node("a-lean", 8, "96");
    node("b-rich", 8, "200");
    scheduler.rebuild();
    for (int i = 0; i < 3; i++) {
      reserveAndUnlock(
          Fabric8Views.manifest(create(wholeCardPod("whole-" + i, "12"), null)), "teacher");
    }
    PodManifest hungry = Fabric8Views.manifest(create(sharePod("hungry", "48"), null));

    Map<String, Double> scores = scheduler.scores(hungry, List.of("a-lean", "b-rich"));

    assertThat(scores.get("b-rich"))
        .as("48 of a-lean's 96 cores would leave 4 of its 8 chips without 12 cores each")
        .isGreaterThan(scores.get("a-lean"));
  }

  @Test
  void aNodeThatDoesNotSayWhatItCanAllocateIsNotLimitedByHost() throws Exception {
    node("a", 2, null);
    create(plainPod("batch", "64"), "a");
    scheduler.rebuild();
    PodManifest share = Fabric8Views.manifest(create(sharePod("share", "8"), null));

    assertThat(scheduler.scores(share, List.of("a"))).containsOnlyKeys("a");
  }

  /** Reserves, then releases the node's lock as the device plugin does once it handed out. */
  private void reserveAndUnlock(PodManifest pod, String node) throws SchedulingException {
    scheduler.reserve(pod, node).join();
    new NodeLocks(client, ClusterFixture.CODEC).release(node, pod.uid());
    scheduler.locksChanged(ClusterFixture.locks(client, node));
  }

  private void node(String name, int chips, String cpu) {
    ClusterFixture.create(client, ClusterFixture.node(name, chips, cpu));
  }

  private Pod create(PodBuilder pod, String node) {
    return ClusterFixture.create(client, pod, node);
  }
}
