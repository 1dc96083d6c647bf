package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The flags and start-up errors of {@code vnpu dra-driver}; the driver is tested in vnpu-dra. */
class DraDriverCommandTest {

  @Test
  void helpDocumentsEveryFlag() {
    Run run = Run.of("dra-driver", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains(
            "--node-name",
            "--driver-name",
            "--sharing",
            "--slices-per-chip",
            "--device-order",
            "--registry-dir",
            "--plugin-dir",
            "--cdi-dir",
            "--state-dir",
            "--shim-library",
            "--shim-log-level",
            "--poll-interval",
            "DRAPartitionableDevices",
            "DRAConsumableCapacity");
  }

  @Test
  void anUnknownSharingModeNamesTheChoices() {
    Run run = Run.of("dra-driver", "--node-name", "n", "--sharing", "mig");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("'mig' is not one of profiles, partitionable, consumable");
  }

  @Test
  void anUnknownDeviceOrderNamesTheChoices() {
    Run run = Run.of("dra-driver", "--node-name", "n", "--device-order", "tight");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("'tight' is not one of binpack, spread");
  }

  @Test
  void slicesMustDivideAChipEvenly() {
    Run run = Run.of("dra-driver", "--node-name", "n", "--slices-per-chip", "3");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--slices-per-chip 3: must be 1, 2, 4 or 8");
  }
}
