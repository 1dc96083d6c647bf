package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.SplitMode;

class SandboxTest {

  @TempDir Path directory;
  private Sandbox sandbox;

  @BeforeEach
  void start() throws Exception {
    sandbox =
        Sandbox.start(
            new Sandbox.Options(
                directory,
                Sandbox.Driver.VOLCANO,
                List.of(NodeSpec.uniform("n1", "test", SplitMode.SOFT, "910B3", 2))));
  }

  @AfterEach
  void stop() {
    sandbox.close();
  }

  @Test
  void aPodRunsUnderTheShim() throws Exception {
    sandbox.client().pods().inNamespace("default").resource(pod("p1", 30, 4)).create();
    await().atMost(Duration.ofSeconds(20)).until(() -> "Running".equals(phase("p1")));
    Path log = directory.resolve("nodes/n1/pods/default/p1/main/log");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> Files.exists(log) && Files.readString(log).contains("taken"));
    assertThat(Files.readString(log)).contains("1024 MiB taken of 4096 MiB");
  }

  private String phase(String name) {
    Pod pod = sandbox.client().pods().inNamespace("default").withName(name).get();
    return pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }

  static Pod pod(String name, int cores, int memoryGib) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("volcano")
        .addNewContainer()
        .withName("main")
        .withImage("model:1")
        .withNewResources()
        .addToLimits(ResourceNames.VNPU_NUMBER, new Quantity("1"))
        .addToLimits(ResourceNames.VNPU_CORES, new Quantity(Integer.toString(cores)))
        .addToLimits(ResourceNames.VNPU_MEMORY_GIB, new Quantity(Integer.toString(memoryGib)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }
}
