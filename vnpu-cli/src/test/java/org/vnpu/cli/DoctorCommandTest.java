package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.LabelKeys;
import org.vnpu.deviceplugin.NodeDoctor;
import org.vnpu.sandbox.Sandbox;

/** {@code vnpu doctor} passes on a sandbox node and names the fix on a broken one. */
class DoctorCommandTest {

  @TempDir static Path directory;

  private static Sandbox sandbox;
  private static String arguments;

  @BeforeAll
  static void start() throws Exception {
    sandbox = ClusterPods.sandbox(directory, ClusterPods.A2);
    arguments = "@" + directory.resolve("nodes/a2/doctor.args");
  }

  @AfterAll
  static void stop() {
    sandbox.close();
  }

  @Test
  void aSandboxNodePassesEveryCheck() {
    Run run = Run.of("doctor", arguments);

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .startsWith("Node a2:\n  CHECK         RESULT  FOUND\n")
        .containsPattern("  labels +pass +huawei.com/vnpu=ready, split mode soft\n")
        .containsPattern("  driver +pass +simulated: 2 chip\\(s\\) \\(2× 910B3\\), all healthy\n")
        .containsPattern("  kubelet +pass +kubelet.sock in ")
        .containsPattern("  shim +pass +.*libvnpu.so preloads\n")
        .endsWith("Every check passed.\n");
  }

  @Test
  void aBrokenNodeFailsWithTheFixNamed() throws Exception {
    Path pods = directory.resolve("nodes/a2/state/pods");
    labelReady(false);
    Files.setPosixFilePermissions(pods, PosixFilePermissions.fromString("rwxrwxrwx"));
    try {
      Run run = Run.of("doctor", arguments, "-o", "json");

      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.out())
          .contains("\"fix\" : \"kubectl label node a2 huawei.com/vnpu=ready\"")
          .contains("is writable by group or others")
          .contains("chmod go-w");
      Run text = Run.of("doctor", arguments);
      assertThat(text.out())
          .contains("To fix:\n  labels: kubectl label node a2 huawei.com/vnpu=ready\n")
          .endsWith("2 check(s) failed.\n");
    } finally {
      Files.setPosixFilePermissions(pods, PosixFilePermissions.fromString("rwxr-xr-x"));
      labelReady(true);
    }
  }

  private static void labelReady(boolean ready) {
    sandbox
        .client()
        .nodes()
        .withName("a2")
        .edit(
            node -> {
              Map<String, String> labels = node.getMetadata().getLabels();
              if (ready) {
                labels.put(LabelKeys.VNPU, LabelKeys.VNPU_READY_VALUE);
              } else {
                labels.remove(LabelKeys.VNPU);
              }
              return node;
            });
  }

  @Test
  void withoutTheApiServerTheLabelsAreNotCheckedAndTheRestIs() {
    Run run = Run.of("doctor", arguments, "--no-api");

    assertThat(run.exitCode()).as(run.out()).isZero();
    assertThat(run.out())
        .containsPattern("  labels +warn +not checked: no API server")
        .endsWith("Every check passed or could not tell (above).\n");
  }

  @Test
  void theOutcomesAreColouredOnlyWhereColourIsWanted() {
    List<NodeDoctor.Check> checks =
        List.of(new NodeDoctor.Check("kubelet", NodeDoctor.Outcome.FAIL, "gone", "start it"));

    assertThat(DoctorCommand.text("a2", checks, Terminal.NONE)).contains("  kubelet  fail    gone");
    assertThat(DoctorCommand.text("a2", checks, new Terminal(true, true)))
        .contains("  kubelet  \u001b[31mfail\u001b[0m    gone");
  }
}
