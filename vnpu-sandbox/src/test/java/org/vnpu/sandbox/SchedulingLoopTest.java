package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.vnpu.kube.PodBindings;

/**
 * The loop runs a scheduler's binding apart from its cycle, as Volcano's cache and kube-scheduler's
 * binding cycle do: the next pod is placed while a binding is still on its way, with the pod being
 * bound already on its node, and a binding that fails leaves its pod unscheduled for a later try.
 */
class SchedulingLoopTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ApiServer api = ApiServer.start(0);
  private final KubernetesClient client = api.client();
  private SchedulingLoop loop;

  @AfterEach
  void stop() {
    if (loop != null) {
      loop.close();
    }
    api.close();
  }

  @Test
  void theNextPodIsPlacedWhileABindingRunsWithThePodBeingBoundOnItsNode() throws Exception {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
        .create();
    pod("first");
    CountDownLatch landing = new CountDownLatch(1);
    Map<String, List<String>> seenOnN1 = new ConcurrentHashMap<>();
    loop =
        new SchedulingLoop(
                client,
                (pod, nodes) -> {
                  String name = pod.getMetadata().getName();
                  seenOnN1.put(
                      name,
                      nodes.stream()
                          .filter(node -> node.name().equals("n1"))
                          .flatMap(node -> node.pods().stream())
                          .map(p -> p.getMetadata().getName())
                          .toList());
                  return SchedulingProtocol.Attempt.binding(
                      "n1",
                      () -> {
                        if (name.equals("first")) {
                          // longer than the test waits: a loop that bound in its cycle fails it
                          landing.await(3 * WAIT.toSeconds(), TimeUnit.SECONDS);
                        }
                        PodBindings.bind(
                            client, "default", name, pod.getMetadata().getUid(), "n1", Map.of());
                        return null;
                      });
                },
                Clock.systemUTC())
            .start();
    await().atMost(WAIT).until(() -> seenOnN1.containsKey("first"));

    pod("second");
    await().atMost(WAIT).until(() -> seenOnN1.containsKey("second"));

    assertThat(landing.getCount()).isEqualTo(1); // the first binding has not landed yet
    assertThat(seenOnN1.get("second")).containsExactly("first");
    assertThat(nodeOf("first")).isNull();
    landing.countDown();
    await().atMost(WAIT).until(() -> "n1".equals(nodeOf("first")) && "n1".equals(nodeOf("second")));
    assertThat(loop.bindingSeconds()).isPositive();
  }

  @Test
  void aBindingThatFailsLeavesItsPodUnscheduledWithTheReason() {
    pod("refused");
    loop =
        new SchedulingLoop(
                client,
                (pod, nodes) -> SchedulingProtocol.Attempt.binding("n1", () -> "node n1 is gone"),
                Clock.systemUTC())
            .start();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(condition("refused"))
                    .isNotNull()
                    .satisfies(
                        c -> {
                          assertThat(c.getStatus()).isEqualTo("False");
                          assertThat(c.getMessage())
                              .isEqualTo("failed to bind to node n1: node n1 is gone");
                        }));
    assertThat(nodeOf("refused")).isNull();
  }

  private void pod(String name) {
    client
        .pods()
        .inNamespace("default")
        .resource(DemoPods.inference(name, 30, 4, "elastic", Map.of(), Map.of()))
        .create();
  }

  private String nodeOf(String name) {
    return client.pods().inNamespace("default").withName(name).get().getSpec().getNodeName();
  }

  private PodCondition condition(String name) {
    Pod pod = client.pods().inNamespace("default").withName(name).get();
    return pod.getStatus() == null
        ? null
        : pod.getStatus().getConditions().stream()
            .filter(c -> c.getType().equals("PodScheduled"))
            .findFirst()
            .orElse(null);
  }
}
