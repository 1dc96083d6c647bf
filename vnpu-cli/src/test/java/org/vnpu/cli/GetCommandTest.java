package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.vnpu.cli.ClusterPods.create;
import static org.vnpu.cli.ClusterPods.pod;
import static org.vnpu.cli.ClusterPods.running;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.sandbox.Sandbox;

/** {@code vnpu get} over a sandbox's kubeconfig shows what the scheduler placed. */
class GetCommandTest {

  @TempDir static Path directory;

  private static Sandbox sandbox;
  private static String kubeconfig;

  @BeforeAll
  static void placeTwoPods() throws Exception {
    sandbox = ClusterPods.sandbox(directory, ClusterPods.A2);
    kubeconfig = sandbox.kubeconfig().toString();
    create(sandbox.client(), pod("share", "default", "1", "30", "8"));
    create(sandbox.client(), pod("card", "batch", "1", null, null));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                running(sandbox.client(), "default", "share")
                    && running(sandbox.client(), "batch", "card"));
  }

  @AfterAll
  static void stop() {
    sandbox.close();
  }

  @Test
  void nodesShowWhatIsAllocatedOfEachNode() {
    Run run = Run.of("get", "nodes", "--kubeconfig", kubeconfig);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .startsWith("NODE  MODE  CHIPS  HEALTHY  AI CORE  MEMORY")
        .contains("a2    soft  2      2        65 %     72 GiB / 128 GiB  2 / ");
  }

  @Test
  void chipsShowEachChipsPods() {
    Run run = Run.of("get", "chips", "a2", "--kubeconfig", kubeconfig);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().lines())
        .hasSize(3)
        .anyMatch(
            line -> line.matches("a2 +\\d +910B3 +healthy +100 % +64 GiB / 64 GiB .* batch/card"))
        .anyMatch(
            line -> line.matches("a2 +\\d +910B3 +healthy +30 % +8 GiB / 64 GiB .* default/share"));
  }

  @Test
  void podsAreOfTheContextsNamespaceOrOfAllAsJson() throws Exception {
    Run inDefault = Run.of("get", "pods", "--kubeconfig", kubeconfig);
    Run all = Run.of("get", "pods", "-A", "-o", "json", "--kubeconfig", kubeconfig);

    assertThat(inDefault.out())
        .contains("default    share  a2")
        .contains("30 % AI Core, 8 GiB, elastic")
        .doesNotContain("card");
    JsonNode pods = new ObjectMapper().readTree(all.out());
    assertThat(pods).hasSize(2);
    assertThat(pods.get(0).get("pod").asText()).isEqualTo("card");
    assertThat(pods.get(0).get("slices").get(0).asText()).isEqualTo("whole card");
    assertThat(pods.get(1).get("priority").asText()).isEqualTo("online");
  }

  @Test
  void wideAddsTypesAndDieIdsAndYamlIsTheSameRowsAsJson() throws Exception {
    Run wide = Run.of("get", "chips", "a2", "-o", "wide", "--kubeconfig", kubeconfig);
    Run yaml = Run.of("get", "nodes", "-o", "yaml", "--kubeconfig", kubeconfig);

    assertThat(wide.out()).startsWith("NODE  CHIP  TYPE   DIE ID ").contains("SIM-a2-0");
    JsonNode nodes = new ObjectMapper(new YAMLFactory()).readTree(yaml.out());
    assertThat(nodes.get(0).get("node").asText()).isEqualTo("a2");
    assertThat(nodes.get(0).get("chipTypes").asText()).isEqualTo("2× 910B3");
  }

  @Test
  void theExportersMeasurementsStandBesideTheAllocation() {
    Run run = chipsWithMetrics(sandbox.node("a2").metricsUrl());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("MEASURED AI CORE  MEASURED MEMORY")
        .containsPattern("a2 +\\d +910B3 +healthy +30 % +8 GiB / 64 GiB +\\S+ / 20 +\\d+ % +\\d+");
    assertThat(chipsWithMetrics("http://127.0.0.1:1/metrics").err())
        .startsWith("vnpu get: --metrics http://127.0.0.1:1/metrics: cannot read it");
  }

  private static Run chipsWithMetrics(String url) {
    return Run.of("get", "chips", "--kubeconfig", kubeconfig, "--metrics", url);
  }

  @Test
  void aTerminalGetsABarPerNodeAndNoColourWithoutWantingIt() {
    List<GetCommand.NodeRow> rows =
        List.of(
            new GetCommand.NodeRow(
                "a2", "soft", "2× 910B3", 2, 2, 65, 73728, 131072, 2, 40, null, null));

    assertThat(GetTables.nodes(rows, false, Terminal.NONE))
        .contains("a2    soft  2      2        65 %     72 GiB / 128 GiB  2 / 40");
    assertThat(GetTables.nodes(rows, false, new Terminal(true, false)))
        .contains("[#######   ] 65 %  [######    ] 72 GiB / 128 GiB");
  }

  @Test
  void aPodsForgedOrMalformedAllocationIsNotShown() {
    // Any pod's owner can write its annotations: only allocations the scheduler signed count.
    for (String value : List.of("not a payload", "{\"podUid\":\"x\",\"node\":\"a2\"}")) {
      String name = "forged-" + value.length();
      create(
          sandbox.client(),
          new PodBuilder(pod(name, "hostile", "1", "30", "8"))
              .editMetadata()
              .addToAnnotations(AnnotationKeys.ALLOCATION, value)
              .endMetadata()
              .editSpec()
              .withSchedulerName("none")
              .withNodeName("a2")
              .endSpec()
              .build());
    }

    Run run = Run.of("get", "pods", "-A", "--kubeconfig", kubeconfig);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("share").contains("card").doesNotContain("forged");
  }

  @Test
  void misplacedArgumentsAndUnknownNodesAreRefusedByName() {
    assertThat(Run.of("get", "chips", "nowhere", "--kubeconfig", kubeconfig).err())
        .isEqualTo("vnpu get: node nowhere has no vNPU chips the scheduler knows of\n");
    assertThat(Run.of("get", "nodes", "-A", "--kubeconfig", kubeconfig).err())
        .isEqualTo("vnpu get: -n and -A choose the namespace of vnpu get pods only\n");
    Run missing = Run.of("get", "pods", "--kubeconfig", directory.resolve("none").toString());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("--kubeconfig").contains("no readable file there");
  }
}
