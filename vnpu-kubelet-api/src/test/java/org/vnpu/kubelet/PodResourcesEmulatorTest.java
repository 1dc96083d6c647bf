package org.vnpu.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.kubelet.podresources.v1.GetPodResourcesRequest;
import org.vnpu.kubelet.podresources.v1.ListPodResourcesRequest;
import org.vnpu.kubelet.podresources.v1.PodResources;
import org.vnpu.kubelet.podresources.v1.PodResourcesListerGrpc;

/** The pod-resources service answers over its Unix socket as the kubelet's {@code server_v1.go}. */
class PodResourcesEmulatorTest {

  @TempDir Path directory;

  @Test
  void listsEveryContainerWithEachDeviceInAnEntryOfItsOwnAndGetRefusesAnUnknownPod() {
    PodResourcesEmulator.ActivePod pod =
        new PodResourcesEmulator.ActivePod(
            "serving",
            "bert",
            List.of("model", "sidecar"),
            Map.of("model", Map.of("huawei.com/vnpu-number", List.of("d-1", "d-2"))));
    Path socket =
        directory.resolve(PodResourcesEmulator.DIRECTORY).resolve(PodResourcesEmulator.SOCKET);
    PodResourcesEmulator kubelet = new PodResourcesEmulator(socket, () -> List.of(pod)).start();
    try {
      ManagedChannel channel = UnixSockets.dial(socket);
      try {
        PodResourcesListerGrpc.PodResourcesListerBlockingStub stub =
            PodResourcesListerGrpc.newBlockingStub(channel);
        List<PodResources> listed =
            stub.list(ListPodResourcesRequest.getDefaultInstance()).getPodResourcesList();

        assertThat(listed)
            .singleElement()
            .satisfies(
                p -> {
                  assertThat(p.getNamespace()).isEqualTo("serving");
                  assertThat(p.getContainersList())
                      .extracting(c -> c.getName())
                      .containsExactly("model", "sidecar");
                  // One ContainerDevices per device, as the real kubelet lists them.
                  assertThat(p.getContainers(0).getDevicesList())
                      .allSatisfy(
                          devices -> {
                            assertThat(devices.getResourceName())
                                .isEqualTo("huawei.com/vnpu-number");
                            assertThat(devices.getDeviceIdsCount()).isOne();
                          })
                      .flatExtracting(devices -> devices.getDeviceIdsList())
                      .containsExactlyInAnyOrder("d-1", "d-2");
                  assertThat(p.getContainers(1).getDevicesList()).isEmpty();
                });
        PodResources got =
            stub.get(
                    GetPodResourcesRequest.newBuilder()
                        .setPodNamespace("serving")
                        .setPodName("bert")
                        .build())
                .getPodResources();
        assertThat(got.getName()).isEqualTo("bert");
        assertThat(got.getContainers(0).getDevicesList())
            .flatExtracting(devices -> devices.getDeviceIdsList())
            .containsExactlyInAnyOrder("d-1", "d-2");
        assertThatThrownBy(
                () ->
                    stub.get(
                        GetPodResourcesRequest.newBuilder()
                            .setPodNamespace("serving")
                            .setPodName("gone")
                            .build()))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN))
            .hasMessageContaining("pod gone not found in serving");
      } finally {
        channel.shutdownNow();
      }
    } finally {
      kubelet.close();
    }
  }
}
