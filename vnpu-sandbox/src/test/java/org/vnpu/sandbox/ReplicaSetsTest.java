package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The sandbox's ReplicaSet controller keeps each set's active pods at its replica count. */
class ReplicaSetsTest {

  private final ApiServer api = ApiServer.start(0);
  private final KubernetesClient client = api.client();
  private final ReplicaSets sets = new ReplicaSets(client).start();

  @AfterEach
  void stop() {
    sets.close();
    api.close();
  }

  @Test
  void aSetGetsItsPodsFromTheTemplateWithItselfAsController() {
    ReplicaSet set = create("shards", 2);

    List<Pod> pods = awaitActive(set, 2);

    assertThat(pods)
        .allSatisfy(
            pod -> {
              assertThat(pod.getMetadata().getName())
                  .matches("shards-[bcdfghjklmnpqrstvwxz2-9]{5}");
              assertThat(pod.getMetadata().getLabels()).containsEntry("app", "shards");
              assertThat(pod.getMetadata().getAnnotations())
                  .containsEntry("huawei.com/vnpu-aicore-policy", "elastic");
              assertThat(pod.getMetadata().getOwnerReferences())
                  .singleElement()
                  .satisfies(
                      owner -> {
                        assertThat(owner.getKind()).isEqualTo("ReplicaSet");
                        assertThat(owner.getUid()).isEqualTo(set.getMetadata().getUid());
                        assertThat(owner.getController()).isTrue();
                      });
              assertThat(pod.getSpec().getContainers()).singleElement();
            });
  }

  @Test
  void anEvictedOrFailedPodIsReplacedAndOtherSetsPodsDoNotCount() {
    ReplicaSet set = create("shards", 2);
    create("other", 1);
    List<Pod> first = awaitActive(set, 2);

    client.pods().inNamespace("default").withName(first.get(0).getMetadata().getName()).delete();
    client
        .pods()
        .inNamespace("default")
        .withName(first.get(1).getMetadata().getName())
        .editStatus(
            pod -> {
              pod.setStatus(new PodStatusBuilder().withPhase("Failed").build());
              return pod;
            });

    List<String> before = first.stream().map(pod -> pod.getMetadata().getName()).toList();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> active(set),
            pods ->
                pods.size() == 2
                    && pods.stream()
                        .map(pod -> pod.getMetadata().getName())
                        .noneMatch(before::contains));
    assertThat(active(set("other"))).hasSize(1);
  }

  private ReplicaSet create(String name, int replicas) {
    Pod template = DemoPods.inference(name, 30, 4, "elastic", Map.of(), Map.of());
    return client
        .apps()
        .replicaSets()
        .inNamespace("default")
        .resource(DemoPods.replicaSet(name, replicas, template))
        .create();
  }

  private ReplicaSet set(String name) {
    return client.apps().replicaSets().inNamespace("default").withName(name).get();
  }

  /** The set's active pods once there are {@code count} of them. */
  private List<Pod> awaitActive(ReplicaSet set, int count) {
    return await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> active(set), pods -> pods.size() == count);
  }

  /** The pods the set owns that have not failed. */
  private List<Pod> active(ReplicaSet set) {
    return client.pods().inNamespace("default").list().getItems().stream()
        .filter(
            pod ->
                pod.getMetadata().getOwnerReferences().stream()
                    .anyMatch(o -> o.getUid().equals(set.getMetadata().getUid())))
        .filter(pod -> pod.getStatus() == null || !"Failed".equals(pod.getStatus().getPhase()))
        .toList();
  }
}
