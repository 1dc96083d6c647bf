package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.core.request.PodManifest;

/**
 * On the extender's path, the scheduler weighs chip types by the pods it has placed: once pods that
 * accept only 310P3 chips have come, a pod that accepts any type ranks the 910B3 node above an idle
 * 310P3 node, and its event says which type it left to them.
 */
@EnableKubernetesMockClient(crud = true)
class ScarceTypeSteeringTest {

  KubernetesClient client;

  private Scheduler scheduler;

  @BeforeEach
  void nodes() {
    for (String duo : List.of("duo-1", "duo-2", "duo-3")) {
      ClusterFixture.create(client, ClusterFixture.node(duo, 1, "64", "310P3"));
    }
    ClusterFixture.create(client, ClusterFixture.node("duo-idle", 2, "64", "310P3"));
    ClusterFixture.create(client, ClusterFixture.node("a2", 8, "64"));
    scheduler = ClusterFixture.scheduler(client, Clock.systemUTC());
    scheduler.rebuild();
  }

  private PodManifest pod(String name, Map<String, String> annotations) {
    PodBuilder pod = ClusterFixture.sharePod(name, "1");
    pod.editMetadata().addToAnnotations(annotations).endMetadata();
    return Fabric8Views.manifest(ClusterFixture.create(client, pod, null));
  }

  @Test
  void aFlexiblePodLeavesTheTypeThatOtherPodsAcceptAloneAndSaysSo() throws Exception {
    Map<String, String> fragmentationAware =
        Map.of(
            AnnotationKeys.NODE_SCHEDULER_POLICY, "fragmentation-aware",
            AnnotationKeys.DEVICE_SCHEDULER_POLICY, "fragmentation-aware");
    PodManifest before = pod("flexible-before", fragmentationAware);
    Map<String, Double> blind = scheduler.scores(before, List.of("duo-idle", "a2"));
    for (String duo : List.of("duo-1", "duo-2", "duo-3")) {
      scheduler
          .reserve(pod("only-310p-" + duo, Map.of(AnnotationKeys.USE_NPU_TYPE, "310P3")), duo)
          .join();
    }

    PodManifest flexible = pod("flexible", fragmentationAware);
    Map<String, Double> scores = scheduler.scores(flexible, List.of("duo-idle", "a2"));
    scheduler.reserve(flexible, "a2").join();

    assertThat(blind.get("duo-idle"))
        .as("before any typed pod, the pod would fill the smaller chips: " + blind)
        .isGreaterThan(blind.get("a2"));
    assertThat(scores.get("a2")).as(scores.toString()).isGreaterThan(scores.get("duo-idle"));
    await()
        .untilAsserted(
            () ->
                assertThat(events("flexible"))
                    .anyMatch(
                        e ->
                            e.getReason().equals("VnpuAllocated")
                                && e.getMessage()
                                    .contains(
                                        "left chip type(s) 310P3 to the pods that accept only"
                                            + " them")));
  }

  private List<Event> events(String pod) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> e.getInvolvedObject().getName().equals(pod))
        .toList();
  }
}
