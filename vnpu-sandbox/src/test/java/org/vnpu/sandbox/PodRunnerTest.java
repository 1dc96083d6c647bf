package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.ResourceNames;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.kubelet.KubeletEmulator;
import org.vnpu.kubelet.PodResourcesEmulator;
import org.vnpu.kubelet.UnixSockets;
import org.vnpu.kubelet.deviceplugin.v1beta1.AllocateRequest;
import org.vnpu.kubelet.deviceplugin.v1beta1.AllocateResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.Device;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.vnpu.kubelet.deviceplugin.v1beta1.Empty;
import org.vnpu.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.RegisterRequest;
import org.vnpu.kubelet.deviceplugin.v1beta1.RegistrationGrpc;

/**
 * The kubelet half of a sandbox node while it admits a pod, as the kubelet: its pod-resources API
 * answers during an Allocate call (the device manager calls the plugin outside its mutex) and lists
 * the pod being admitted with the devices of the containers handed out so far (the pod manager
 * holds the pod before its admission, {@code pkg/kubelet/kubelet.go HandlePodAdditions}).
 */
class PodRunnerTest {

  private static final String NODE = "n";

  @TempDir Path directory;

  private final ApiServer api = ApiServer.start(0);
  private final KubernetesClient client = api.client();
  private final CountDownLatch secondCalled = new CountDownLatch(1);
  private final CountDownLatch answerSecond = new CountDownLatch(1);
  private KubeletEmulator kubelet;
  private Server plugin;
  private PodRunner runner;

  @AfterEach
  void stop() {
    answerSecond.countDown();
    if (runner != null) {
      runner.close();
    }
    if (plugin != null) {
      plugin.shutdownNow();
    }
    if (kubelet != null) {
      kubelet.close();
    }
    api.close();
  }

  @Test
  void thePodBeingAdmittedIsListedWithTheDevicesHandedOutSoFar() throws Exception {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(NODE)
                .endMetadata()
                .withNewStatus()
                .addToAllocatable("pods", new Quantity("110"))
                .addToAllocatable(ResourceNames.VNPU_NUMBER, new Quantity("4"))
                .endStatus()
                .build())
        .create();
    Path plugins = directory.resolve("device-plugins");
    kubelet = new KubeletEmulator(plugins).start();
    plugin = UnixSockets.serve(plugins.resolve("vnpu.sock"), new SecondAllocateWaits());
    register(plugins);
    kubelet.awaitDevices(List.of(ResourceNames.VNPU_NUMBER), Duration.ofSeconds(10));
    runner =
        new PodRunner(
                client,
                NODE,
                kubelet,
                new ContainerRuntime(
                    directory.resolve("no-workload"),
                    directory.resolve("fake-chips"),
                    index -> null,
                    ChipCatalog.builtIn(),
                    0),
                directory.resolve("pods"),
                false,
                null)
            .start();

    client
        .pods()
        .inNamespace("default")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withNodeName(NODE)
                .withContainers(vnpuContainer("first"), vnpuContainer("second"))
                .endSpec()
                .build())
        .create();
    assertThat(secondCalled.await(10, TimeUnit.SECONDS)).as("the second Allocate").isTrue();

    List<PodResourcesEmulator.ActivePod> during =
        CompletableFuture.supplyAsync(runner::activePods).get(5, TimeUnit.SECONDS);
    assertThat(during)
        .singleElement()
        .satisfies(
            pod -> {
              assertThat(pod.name()).isEqualTo("p");
              assertThat(pod.containers()).containsExactly("first", "second");
              assertThat(pod.devices())
                  .as("only the first container's Allocate answered")
                  .containsOnlyKeys("first");
            });

    answerSecond.countDown();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(runner.activePods())
                    .singleElement()
                    .satisfies(
                        pod ->
                            assertThat(pod.devices().keySet())
                                .containsExactlyInAnyOrder("first", "second")));
  }

  private static Container vnpuContainer(String name) {
    return new ContainerBuilder()
        .withName(name)
        .withNewResources()
        .addToLimits(ResourceNames.VNPU_NUMBER, new Quantity("1"))
        .endResources()
        .build();
  }

  private static void register(Path plugins) {
    ManagedChannel channel = UnixSockets.dial(plugins.resolve(KubeletEmulator.KUBELET_SOCKET));
    try {
      RegistrationGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .register(
              RegisterRequest.newBuilder()
                  .setVersion("v1beta1")
                  .setEndpoint("vnpu.sock")
                  .setResourceName(ResourceNames.VNPU_NUMBER)
                  .build());
    } finally {
      channel.shutdownNow();
    }
  }

  /** A device plugin with four devices whose second Allocate call answers when the test says. */
  private final class SecondAllocateWaits extends DevicePluginGrpc.DevicePluginImplBase {
    private final AtomicInteger calls = new AtomicInteger();

    @Override
    public void getDevicePluginOptions(
        Empty request, StreamObserver<DevicePluginOptions> response) {
      response.onNext(DevicePluginOptions.getDefaultInstance());
      response.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
      ListAndWatchResponse.Builder devices = ListAndWatchResponse.newBuilder();
      for (int i = 0; i < 4; i++) {
        devices.addDevices(Device.newBuilder().setID("d-" + i).setHealth("Healthy"));
      }
      response.onNext(devices.build()); // the stream stays open, as a plugin's does
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> response) {
      if (calls.incrementAndGet() == 2) {
        secondCalled.countDown();
        try {
          answerSecond.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      response.onNext(
          AllocateResponse.newBuilder()
              .addContainerResponses(ContainerAllocateResponse.getDefaultInstance())
              .build());
      response.onCompleted();
    }
  }
}
