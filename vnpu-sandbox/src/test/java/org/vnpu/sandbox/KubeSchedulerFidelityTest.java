package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.SplitMode;

/**
 * The kube-scheduler cycle runs {@code NodeResourcesFit} as kube-scheduler does, honouring the
 * extender's {@code ignoredByScheduler}, and a chip-type selector works with the chart's profile. A
 * node of 910B3 and a node of 310P3.
 */
class KubeSchedulerFidelityTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path directory;
  private Sandbox sandbox;
  private SandboxPods pods;

  @BeforeEach
  void start() throws Exception {
    sandbox =
        SandboxPods.start(
            directory,
            Sandbox.Driver.KUBE_SCHEDULER,
            List.of(
                NodeSpec.uniform("a2", "two 910B3", SplitMode.SOFT, "910B3", 2),
                NodeSpec.uniform("duo", "two 310P3", SplitMode.SOFT, "310P3", 2)),
            VolcanoConfig.shipped());
    pods = new SandboxPods(sandbox);
  }

  @AfterEach
  void stop() {
    sandbox.close();
  }

  @Test
  void aChipTypeSelectorIsScheduledOnTheNodeThatHasTheType() {
    pods.create(typed("typed", "310P3"));

    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("typed")));
    assertThat(pods.node("typed")).isEqualTo("duo");
    assertThat(pods.vnpus("typed").get(0).chipType()).isEqualTo("310P3");
  }

  @Test
  void nodeResourcesFitRefusesMoreThanANodeAdvertisesBeforeTheExtenderIsAsked() {
    pods.submit("hungry", 30, 200);

    await().atMost(WAIT).until(() -> pods.notBoundBecause("hungry") != null);
    assertThat(pods.notBoundBecause("hungry"))
        .isEqualTo(
            "0/2 nodes fit: 2 Insufficient "
                + ResourceNames.VNPU_MEMORY_GIB
                + "; preemption: 0/2 nodes fit: 2 No preemption victims found for incoming pod");
  }

  private static Pod typed(String name, String chipType) {
    Pod pod = DemoPods.inference(name, 30, 4, "elastic", Map.of(), Map.of());
    pod.getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .getLimits()
        .put(ResourceNames.typeResource(chipType), new Quantity("1"));
    return pod;
  }
}
