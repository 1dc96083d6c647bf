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

  @Test
  void twoPodsShareAChip() throws Exception {
    for (String name : List.of("a", "b")) {
      sandbox
          .client()
          .pods()
          .inNamespace("default")
          .resource(
              Scenario.inference(
                  name,
                  name.equals("a") ? 30 : 60,
                  4,
                  "fixed-share",
                  java.util.Map.of(org.vnpu.api.AnnotationKeys.USE_NPU_DIE_ID, "SIM-n1-1"),
                  java.util.Map.of()))
          .create();
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "Running".equals(phase("a")) && "Running".equals(phase("b")));
    String url = sandbox.node("n1").metricsUrl();
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    Thread.sleep(1000);
    http.send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    Thread.sleep(4000);
    String body =
        http.send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString())
            .body();
    System.out.println(
        body.lines()
            .filter(l -> l.startsWith("vnpu_container"))
            .collect(java.util.stream.Collectors.joining("\n")));
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
