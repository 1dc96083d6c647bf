package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ContainerRuntimeTest {

  private final Map<String, String> mounts =
      Map.of(
          "/etc/vnpu/vnpu.conf",
          "/state/pods/u/main/vnpu.conf",
          "/var/run/vnpu/chips/D",
          "/state/chips/D");

  @Test
  void containerPathsUnderAMountBecomeHostPaths() {
    assertThat(ContainerRuntime.resolve("/etc/vnpu/vnpu.conf", mounts))
        .isEqualTo("/state/pods/u/main/vnpu.conf");
    assertThat(ContainerRuntime.resolve("/var/run/vnpu/chips/D/region", mounts))
        .isEqualTo("/state/chips/D/region");
  }

  @Test
  void otherValuesStayAsTheyAre() {
    assertThat(ContainerRuntime.resolve("/var/run/vnpu/chips/DX", mounts))
        .isEqualTo("/var/run/vnpu/chips/DX");
    assertThat(ContainerRuntime.resolve("3,5", mounts)).isEqualTo("3,5");
  }
}
