package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.vnpu.cli.ClusterPods.create;
import static org.vnpu.cli.ClusterPods.pod;
import static org.vnpu.cli.ClusterPods.running;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.SplitMode;
import org.vnpu.sandbox.NodeSpec;
import org.vnpu.sandbox.Sandbox;

/**
 * {@code vnpu why} over a sandbox: its answer for a pending pod is the scheduler's own, and it says
 * what would make the pod fit; for a placed pod, where it runs.
 */
class WhyCommandTest {

  @TempDir static Path directory;

  private static Sandbox sandbox;
  private static String kubeconfig;

  @BeforeAll
  static void placeSomeAndNotOthers() throws Exception {
    sandbox =
        ClusterPods.sandbox(
            directory,
            ClusterPods.A2,
            NodeSpec.uniform("duo", "two 310P3", SplitMode.HARD, "310P3", 2));
    kubeconfig = sandbox.kubeconfig().toString();
    create(sandbox.client(), pod("share", "default", "1", "30", "8"));
    create(sandbox.client(), example("hard-slice"));
    create(sandbox.client(), pod("huge", "default", "1", "30", "80"));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                running(sandbox.client(), "default", "share")
                    && !events("hard-slice").isEmpty()
                    && !events("huge").isEmpty());
  }

  @AfterAll
  static void stop() {
    sandbox.close();
  }

  @Test
  void aPendingPodGetsEachNodesReasonAsTheSchedulerGaveItAndWhatWouldMakeItFit() {
    Run run = Run.of("why", "default/hard-slice", "--kubeconfig", kubeconfig);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .startsWith(
            "Pod default/hard-slice is not placed: 0/2 nodes fit: 1 split mode is soft, 1 no"
                + " hard-mode template fits (25% AI Core, 16384 MiB).\n")
        .containsPattern(
            "  a2 +split mode is soft +a2 is in soft mode; labelled huawei.com/vnpu-mode=hard once"
                + " its vNPU pods are gone, it would take the pod on chip\\(s\\) \\d\n")
        .containsPattern(
            "  duo +no hard-mode template fits \\(25% AI Core, 16384 MiB\\) +no 310P3 chip of duo"
                + " has such a template free\n")
        .contains(
            "It needs one of these, which no node offers now:\n"
                + "  - a hard-mode node with 910B3 chips (see a2)\n");
    // Volcano's extender plugin asks node by node, so each of its events judges one node.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(events("hard-slice"))
                    .contains(
                        "0/1 nodes fit: 1 split mode is soft",
                        "0/1 nodes fit: 1 no hard-mode template fits (25% AI Core, 16384 MiB)"));
  }

  @Test
  void aNodeTheSchedulersOwnCheckRefusesIsNotJudgedAndTheSentenceIsTheEventsOwn() {
    Run run = Run.of("why", "huge", "-n", "default", "--kubeconfig", kubeconfig, "-o", "json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode answer = json(run.out());
    assertThat(answer.get("state").asText()).isEqualTo("pending");
    assertThat(answer.get("unschedulable").asText())
        .isEqualTo("0/1 nodes fit: 1 not enough device memory (need 80 GiB, largest free 64 GiB)");
    JsonNode a2 = answer.get("nodes").get(0);
    assertThat(a2.get("node").asText()).isEqualTo("a2");
    assertThat(a2.get("refusal").asText())
        .isEqualTo("not enough device memory (need 80 GiB, largest free 64 GiB)");
    assertThat(a2.get("change").asText())
        .isEqualTo("free 16 GiB more on one 910B3 chip of a2 (the largest free is 64 GiB)");
    JsonNode duo = answer.get("nodes").get(1);
    assertThat(duo.get("refusal").asText())
        .isEqualTo("Insufficient huawei.com/vnpu-memory.1Gi (the scheduler's own check)");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(events("huge")).contains(answer.get("unschedulable").asText()));
  }

  @Test
  void aPlacedPodSaysWhereItRunsAsItsAllocationDoes() {
    Run run = Run.of("why", "default/share", "--kubeconfig", kubeconfig);
    Pod pod = sandbox.client().pods().inNamespace("default").withName("share").get();

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .startsWith(
            "Pod default/share is placed on node "
                + pod.getSpec().getNodeName()
                + " (phase Running) with these vNPUs:")
        .containsPattern("main +\\d +910B3 +30 % AI Core, 8 GiB, elastic");
  }

  @Test
  void aPlacedPodShowsItsMeasuredShareFromTheExporter() {
    Run run =
        Run.of(
            "why",
            "default/share",
            "--kubeconfig",
            kubeconfig,
            "--metrics",
            sandbox.node("a2").metricsUrl() + "," + sandbox.node("duo").metricsUrl());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).containsPattern("MEASURED AI CORE\n.*elastic +\\d+ %");
  }

  @Test
  void aPodThatBreaksTheContractGetsTheRuleNotAStackTrace() {
    // Any pod's owner writes its resources: two shares in one container is not a vNPU request.
    create(sandbox.client(), pod("two-shares", "hostile", "2", "30", "8"));

    Run run = Run.of("why", "hostile/two-shares", "--kubeconfig", kubeconfig);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .startsWith("Pod hostile/two-shares breaks the vNPU contract, so no node takes it: ")
        .contains("several vNPUs are only allowed for whole cards");
  }

  @Test
  void aPodWithoutVnpusAndAMissingPodAreSaidSo() {
    create(
        sandbox.client(),
        new PodBuilder(pod("plain", "default", "1", null, null))
            .editSpec()
            .editFirstContainer()
            .withNewResources()
            .endResources()
            .endContainer()
            .endSpec()
            .build());

    assertThat(Run.of("why", "plain", "--kubeconfig", kubeconfig).out())
        .startsWith("Pod default/plain asks for no vNPU");
    Run missing = Run.of("why", "default/nothing", "--kubeconfig", kubeconfig);
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err())
        .isEqualTo("vnpu why: pod default/nothing not found (kubectl get pod -n default)\n");
    assertThat(Run.of("why", "a/b/c", "--kubeconfig", kubeconfig).err())
        .isEqualTo("vnpu why: POD a/b/c: must be NAMESPACE/POD or POD\n");
  }

  /** The messages of the scheduler's VnpuUnschedulable events on the pod. */
  private static List<String> events(String pod) {
    return sandbox.client().v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> pod.equals(e.getInvolvedObject().getName()))
        .filter(e -> "VnpuUnschedulable".equals(e.getReason()))
        .map(Event::getMessage)
        .toList();
  }

  private static Pod example(String name) throws IOException {
    try (InputStream in = Files.newInputStream(Path.of("../deploy/examples/" + name + ".yaml"))) {
      Pod pod = Serialization.unmarshal(in, Pod.class);
      pod.getMetadata().setNamespace("default");
      return pod;
    }
  }

  private static JsonNode json(String text) {
    try {
      return new ObjectMapper().readTree(text);
    } catch (IOException e) {
      throw new AssertionError(text, e);
    }
  }
}
