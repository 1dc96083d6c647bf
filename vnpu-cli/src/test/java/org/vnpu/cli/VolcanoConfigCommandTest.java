package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.sandbox.VolcanoConfig;
import org.vnpu.scheduler.VolcanoSchedulerConf;

class VolcanoConfigCommandTest {

  private static final String URL = "http://vnpu-scheduler.vnpu-system.svc:9401/volcano";

  @TempDir Path dir;

  @Test
  void mergesTheExtenderIntoTheClustersConfigurationKeepingTheRest() throws IOException {
    Path current =
        Files.writeString(
            dir.resolve("volcano-scheduler.conf"),
            """
            actions: "enqueue, allocate, preempt, backfill"
            tiers:
            - plugins:
              - name: priority
              - name: gang
            - plugins:
              - name: predicates
              - name: nodeorder
              - name: binpack
            """);

    Run run = Run.of("volcano-config", "--extender-url", URL, "--from", current.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode merged = VolcanoSchedulerConf.parse(run.out());
    assertThat(merged.path("actions").asText())
        .isEqualTo("enqueue, allocate, preempt, reclaim, backfill");
    assertThat(merged.toString()).contains("\"extender.urlPrefix\":\"" + URL + "\"");
    assertThat(merged.toString()).doesNotContain("binpack");
  }

  @Test
  void withoutAConfigurationMergesIntoVolcanosDefaultAsTheSandboxSchedules() {
    Run run = Run.of("volcano-config", "--extender-url", URL);

    assertThat(run.exitCode()).isZero();
    assertThat(VolcanoConfig.parse(VolcanoSchedulerConf.parse(run.out())))
        .isEqualTo(VolcanoConfig.shipped());
  }

  @Test
  void refusesAFileThatIsNoConfigurationAndAUrlWithoutHost() throws IOException {
    Path pod = Files.writeString(dir.resolve("pod.yaml"), "kind: Pod\n");

    Run notConfig = Run.of("volcano-config", "--extender-url", URL, "--from", pod.toString());
    Run badUrl = Run.of("volcano-config", "--extender-url", "vnpu-scheduler:9401");

    assertThat(notConfig.exitCode()).isEqualTo(2);
    assertThat(notConfig.err())
        .contains(pod + ": the Volcano scheduler configuration has no tiers of plugins");
    assertThat(badUrl.exitCode()).isEqualTo(2);
    assertThat(badUrl.err())
        .contains("--extender-url vnpu-scheduler:9401 must be an http or https URL with a host");
  }
}
