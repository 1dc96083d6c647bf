package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flags and start-up errors of {@code vnpu device-plugin}; the plugin itself is tested in its
 * module.
 */
class DevicePluginCommandTest {

  @TempDir Path dir;

  @Test
  void helpDocumentsEveryFlag() {
    Run run = Run.of("device-plugin", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains(
            "--node-name",
            "--driver",
            "--inventory",
            "--dcmi-library",
            "--npu-smi",
            "--verifying-keys",
            "--max-shares-per-chip",
            "--kubelet-dir",
            "--state-dir",
            "--shim-library",
            "--driver-mount",
            "--shim-log-level",
            "--poll-interval",
            "--heartbeat-interval",
            "--cleanup-interval",
            "--pod-resources-socket",
            "/var/lib/kubelet/pod-resources/",
            "--chip-catalog",
            "/var/lib/kubelet/device-plugins",
            "docs/node-agent.md");
  }

  @Test
  void startUpProblemsAreNamedAndExitWithTwo() throws IOException {
    Path keys = dir.resolve("verifying-keys");
    Path inventory = Files.writeString(dir.resolve("inventory.yaml"), "chips:\n  - {type: 920X}\n");

    assertThat(Run.of("device-plugin", "--node-name", "").err())
        .contains("--node-name is required (or set $NODE_NAME)");
    Run noKeys = Run.of("device-plugin", "--node-name", "n1", "--verifying-keys", keys.toString());
    assertThat(noKeys.exitCode()).isEqualTo(2);
    assertThat(noKeys.err())
        .contains(
            "--verifying-keys "
                + keys
                + " is not a directory (mount the scheduler's verifying-keys ConfigMap there)");

    Files.createDirectories(keys);
    Run badChip =
        Run.of(
            "device-plugin",
            "--node-name",
            "n1",
            "--verifying-keys",
            keys.toString(),
            "--inventory",
            inventory.toString());
    assertThat(badChip.exitCode()).isEqualTo(2);
    assertThat(badChip.err()).contains("chips[0].type=920X is not in the chip catalog");

    Run badFlag = Run.of("device-plugin", "--driver", "cuda", "--poll-interval", "soon");
    assertThat(badFlag.exitCode()).isEqualTo(2);
    assertThat(badFlag.err()).contains("'cuda' is not one of dcmi, npu-smi, simulated");
    assertThat(Run.of("device-plugin", "--poll-interval", "soon").err())
        .contains("'soon' is not a duration; write it like 500ms, 5s, 2m or 1h");
    assertThat(Run.of("device-plugin", "--node-name", "n", "--max-shares-per-chip", "64").err())
        .contains("--max-shares-per-chip=64 is out of range 1..63");
  }
}
