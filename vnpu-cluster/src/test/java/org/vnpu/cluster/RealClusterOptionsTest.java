package org.vnpu.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vnpu.sandbox.DemoCluster;
import org.vnpu.sandbox.Sandbox;

/** A real cluster has device-plugin nodes or DRA nodes, as the chart deploys one or the other. */
class RealClusterOptionsTest {

  private static RealCluster.Options options(
      Sandbox.Driver driver, boolean devicePlugin, boolean dra) {
    return new RealCluster.Options(
        Path.of("dir"),
        driver,
        List.of("vnpu"),
        devicePlugin ? DemoCluster.NODES : List.of(),
        dra ? DemoCluster.DRA_NODES : List.of(),
        Map.of("rebalancer.mode", "execute"));
  }

  @Test
  void draNodesInstallTheChartWithDraEnabled() {
    assertThat(options(Sandbox.Driver.KUBE_SCHEDULER, false, true).chartValues())
        .containsEntry("dra.enabled", true)
        .containsEntry("rebalancer.mode", "execute");
    assertThat(options(Sandbox.Driver.VOLCANO, true, false).chartValues())
        .doesNotContainKey("dra.enabled");
  }

  @Test
  void draNodesBesideDevicePluginNodesOrUnderVolcanoAreRefused() {
    assertThatThrownBy(() -> options(Sandbox.Driver.KUBE_SCHEDULER, true, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DRA instead of the device plugin");
    assertThatThrownBy(() -> options(Sandbox.Driver.VOLCANO, false, true))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
