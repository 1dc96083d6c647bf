package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ValidatePodCommandTest {

  private static final String MIXED = "src/test/resources/pods/mixed.yaml";

  @TempDir Path dir;

  @Test
  void printsTypedRequestsAndProblemsOfEveryPod() {
    Run run = Run.of("validate-pod", MIXED);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .isEqualTo(
            """
            pod default/infer-small: valid
              mode soft, node policy fragmentation-aware, device policy fragmentation-aware
              CONTAINER      VNPUS  KIND   AI CORE  MEMORY  POLICY       CHIP TYPE
              warmup (init)  1      share  10%      2 GiB   fixed-share  any
              server         1      share  30%      8 GiB   fixed-share  910B3
            pod team-a/bad: 1 problem
              - huawei.com/vnpu-number=2 with huawei.com/vnpu-cores=30 in container main: several\
             vNPUs are only allowed for whole cards
            """);
  }

  @Test
  void exitsZeroWhenEveryPodIsValid() throws IOException {
    Path pod =
        Files.writeString(
            dir.resolve("whole.json"),
            """
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train"},
             "spec": {"containers": [{"name": "t", "resources": {"limits":
               {"huawei.com/vnpu-number": "8"}}}]}}
            """);
    Run run = Run.of("validate-pod", pod.toString());
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).containsPattern("(?m)^  t +8 +whole card +100% +whole chip +- +any$");
  }

  @Test
  void saysWhenPodRequestsNoVnpu() throws IOException {
    Path pod =
        Files.writeString(
            dir.resolve("web.yaml"),
            "kind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: w}]}\n");
    assertThat(Run.of("validate-pod", pod.toString()).out())
        .isEqualTo("pod default/web: valid, requests no vNPU\n");
  }

  @Test
  void printsVerdictsAsJson() throws IOException {
    Run run = Run.of("validate-pod", "-o", "json", MIXED);
    JsonNode verdicts = new ObjectMapper().readTree(run.out());
    assertThat(verdicts.get(0).path("valid").asBoolean()).isTrue();
    assertThat(verdicts.get(0).path("request").path("containers").get(1).path("cores").asInt())
        .isEqualTo(30);
    assertThat(verdicts.get(1).path("problems").get(0).asText())
        .startsWith("huawei.com/vnpu-number=2 with huawei.com/vnpu-cores=30");
  }

  @Test
  void refusesManifestThatIsNotAPod() {
    Run run = Run.of("validate-pod", "src/test/resources/pods/deployment.yaml");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "vnpu validate-pod: src/test/resources/pods/deployment.yaml document 1: kind"
                + " \"Deployment\" is not a Pod; validate-pod reads Pod manifests\n");
  }

  @Test
  void refusesMissingFile() {
    Run run = Run.of("validate-pod", "no/such/pod.yaml");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("vnpu validate-pod: no/such/pod.yaml: no such file\n");
  }

  @Test
  void refusesFileThatIsNotYaml() throws IOException {
    Path file = Files.writeString(dir.resolve("junk.yaml"), "kind: Pod\n  bad: [\n");
    Run run = Run.of("validate-pod", file.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith("vnpu validate-pod: " + file + ": not a YAML or JSON manifest: ");
  }
}
