package org.vnpu.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vnpu.core.ledger.HostResources;

class HostRequestsTest {

  @Test
  void sumsTheAppContainersRequests() {
    PodManifest pod =
        pod(List.of(), List.of(requests("main", "2", "4Gi"), requests("sidecar", "250m", "512Mi")));

    assertThat(HostRequests.of(pod)).isEqualTo(new HostResources(2250, 4608));
  }

  @Test
  void takesTheLargestInitContainerWhenItAsksMoreThanTheAppContainers() {
    PodManifest pod =
        pod(List.of(requests("download", "4", "1Gi")), List.of(requests("main", "1", "8Gi")));

    assertThat(HostRequests.of(pod)).isEqualTo(new HostResources(4000, 8192));
  }

  @Test
  void aLimitWithoutARequestIsTheRequestAndAbsentResourcesAreNone() {
    PodManifest pod =
        pod(
            List.of(),
            List.of(
                new ContainerSpec(
                    "main", Map.of("cpu", "3", "huawei.com/vnpu-number", "1"), Map.of())));

    assertThat(HostRequests.of(pod)).isEqualTo(new HostResources(3000, 0));
  }

  @Test
  void aQuantityItCannotReadNamesTheContainerTheResourceAndTheValue() {
    PodManifest pod = pod(List.of(), List.of(requests("main", "two", "1Gi")));

    assertThatThrownBy(() -> HostRequests.of(pod))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "host request of container main: cpu \"two\" is not a quantity (a number with an"
                + " optional suffix such as m, Mi, Gi)");
  }

  @Test
  void addsThePodsOverheadAsKubeSchedulersFitDoes() {
    PodManifest pod =
        withOverhead(
            List.of(requests("download", "4", "1Gi")),
            List.of(requests("main", "1", "8Gi")),
            Map.of("cpu", "250m", "memory", "160Mi"));

    assertThat(HostRequests.of(pod)).isEqualTo(new HostResources(4250, 8352));
  }

  @Test
  void anOverheadItCannotReadIsNamed() {
    PodManifest pod =
        withOverhead(List.of(), List.of(requests("main", "1", "1Gi")), Map.of("memory", "lots"));

    assertThatThrownBy(() -> HostRequests.of(pod))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("host request of overhead: memory \"lots\" is not a quantity");
  }

  @Test
  void requestsThatAddUpBeyondWhatCanBeCountedAreRefusedNotWrappedAround() {
    String huge = Long.MAX_VALUE / 1000 + "";
    PodManifest pod =
        withOverhead(
            List.of(), List.of(requests("a", huge, "1Gi"), requests("b", huge, "1Gi")), Map.of());

    assertThatThrownBy(() -> HostRequests.of(pod))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("host request of pod p: the sum of its requests is too large");
  }

  private static PodManifest withOverhead(
      List<ContainerSpec> init, List<ContainerSpec> containers, Map<String, String> overhead) {
    return new PodManifest("default", "p", "uid", Map.of(), init, containers, null, overhead);
  }

  private static ContainerSpec requests(String name, String cpu, String memory) {
    return new ContainerSpec(name, Map.of(), Map.of("cpu", cpu, "memory", memory));
  }

  private static PodManifest pod(List<ContainerSpec> init, List<ContainerSpec> containers) {
    return new PodManifest("default", "p", "uid", Map.of(), init, containers);
  }
}
