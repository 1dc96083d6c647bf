package org.vnpu.cluster.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.vnpu.api.ResourceNames;
import org.vnpu.deviceplugin.kubelet.AllocateLog;
import org.vnpu.kubelet.podresources.v1.ContainerDevices;
import org.vnpu.kubelet.podresources.v1.ContainerResources;
import org.vnpu.kubelet.podresources.v1.PodResources;

/** What the agreement compares of a kubelet's handling of one pod, in words. */
class KubeletObservationsTest {

  private static final Map<String, Quantity> LIMITS =
      Map.of(
          ResourceNames.VNPU_NUMBER,
          new Quantity("1"),
          ResourceNames.VNPU_CORES,
          new Quantity("6"));

  private static Pod pod(String phase, boolean init) {
    PodBuilder pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("p")
            .withUid("uid-1")
            .endMetadata()
            .withNewSpec()
            .addToContainers(
                new ContainerBuilder()
                    .withName("app")
                    .withNewResources()
                    .withLimits(LIMITS)
                    .endResources()
                    .build())
            .endSpec()
            .withNewStatus()
            .withPhase(phase)
            .endStatus();
    if (init) {
      pod.editSpec()
          .addToInitContainers(
              new ContainerBuilder()
                  .withName("setup")
                  .withNewResources()
                  .withLimits(LIMITS)
                  .endResources()
                  .build())
          .endSpec();
    }
    return pod.build();
  }

  private static AllocateLog.Call call(String resource, List<String> ids) {
    return new AllocateLog.Call(resource, List.of(AllocateLog.shown(ids)));
  }

  private static final List<String> CORES =
      IntStream.range(0, 6).mapToObj(i -> (i < 3 ? "die-a-" : "die-b-") + i).toList();

  @Test
  void aRunningPodsCallsAreGroupedByContainerAndItsListingCountsEntriesAndChips() {
    List<AllocateLog.Call> calls =
        List.of(
            call(ResourceNames.VNPU_CORES, CORES),
            call(ResourceNames.VNPU_NUMBER, List.of("die-a-n0")),
            call(ResourceNames.VNPU_NUMBER, List.of("die-a-n0")),
            call(ResourceNames.VNPU_CORES, CORES));
    ContainerResources.Builder listed = ContainerResources.newBuilder().setName("app");
    CORES.forEach(
        id ->
            listed.addDevices(
                ContainerDevices.newBuilder()
                    .setResourceName(ResourceNames.VNPU_CORES)
                    .addDeviceIds(id)));

    Map<String, String> seen =
        KubeletObservations.of(
            pod("Running", true),
            calls,
            Optional.of(PodResources.newBuilder().addContainers(listed).build()));

    assertThat(seen)
        .containsEntry("outcome", "Running")
        .containsEntry(
            "Allocate calls",
            "setup: vnpu-cores 6, vnpu-number 1; app: vnpu-cores 6, vnpu-number 1")
        .containsEntry("init container's IDs reused by the app container", "every resource's")
        .containsEntry("pod-resources List", "app: vnpu-cores 6 IDs in 6 entries")
        .containsEntry("chips the AI Core IDs were picked on", "2 chips");
  }

  @Test
  void aRejectedPodShowsItsMessageWithoutItsUidAndTheLastCall() {
    Pod pod = pod("Failed", false);
    pod.getStatus().setReason("UnexpectedAdmissionError");
    pod.getStatus().setMessage("Pod was rejected: Allocate failed for uid-1");

    Map<String, String> seen =
        KubeletObservations.of(
            pod, List.of(call(ResourceNames.VNPU_NUMBER, List.of("x"))), Optional.empty());

    assertThat(seen)
        .containsEntry(
            "outcome",
            "Failed UnexpectedAdmissionError: Pod was rejected: Allocate failed for <uid>")
        .containsEntry("Allocate calls", "the last is huawei.com/vnpu-number's")
        .containsEntry("pod-resources List", "not listed")
        .doesNotContainKey("chips the AI Core IDs were picked on");
  }
}
