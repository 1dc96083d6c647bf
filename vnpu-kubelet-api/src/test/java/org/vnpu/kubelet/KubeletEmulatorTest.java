package org.vnpu.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.kubelet.deviceplugin.v1beta1.Device;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.vnpu.kubelet.deviceplugin.v1beta1.Empty;
import org.vnpu.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.RegisterRequest;
import org.vnpu.kubelet.deviceplugin.v1beta1.RegistrationGrpc;

/**
 * The emulator picks free device IDs as the real kubelet did on the real node: in no particular
 * order, so a count of AI Core IDs spreads over the chips rather than filling the first.
 */
class KubeletEmulatorTest {

  private static final String RESOURCE = "huawei.com/vnpu-cores";

  @TempDir Path directory;

  private KubeletEmulator kubelet;
  private Server plugin;

  @AfterEach
  void stop() {
    if (plugin != null) {
      plugin.shutdownNow();
    }
    if (kubelet != null) {
      kubelet.close();
    }
  }

  @Test
  void freeIdsArePickedInNoOrderAndTooFewAreRefusedAsTheKubeletRefuses() {
    kubelet = new KubeletEmulator(directory).start();
    plugin = UnixSockets.serve(directory.resolve("cores.sock"), new TwoChips());
    register();

    List<String> picked = kubelet.pickHealthy(RESOURCE, 30, List.of());

    assertThat(picked).hasSize(30).doesNotHaveDuplicates();
    // In list order all 30 would be chip a's; at random, all 30 on one chip is 1 in 10^9.
    assertThat(picked.stream().map(id -> id.substring(0, 6)).distinct()).hasSize(2);
    List<String> taken = new ArrayList<>(picked);
    assertThatThrownBy(() -> kubelet.pickHealthy(RESOURCE, 171, taken))
        .hasMessage(
            "requested number of devices unavailable for "
                + RESOURCE
                + ". Requested: 171, Available: 170");
  }

  @Test
  void aRestartedKubeletRefusesAResourceUntilItsPluginRegistersAgainAsTheKubeletRefuses() {
    kubelet = new KubeletEmulator(directory).start();
    plugin = UnixSockets.serve(directory.resolve("cores.sock"), new TwoChips());
    register();

    kubelet.restart();

    // devicemanager/manager.go: readCheckpoint keeps the resource with no devices;
    // devicesToAllocate
    // checks the registration, then the health, then the count.
    assertThatThrownBy(() -> kubelet.pickHealthy(RESOURCE, 1, List.of()))
        .hasMessage("no healthy devices present; cannot allocate unhealthy devices " + RESOURCE);
    assertThatThrownBy(() -> kubelet.pickHealthy("huawei.com/vnpu-number", 1, List.of()))
        .hasMessage("cannot allocate unregistered device huawei.com/vnpu-number");
    plugin.shutdownNow(); // the restart deleted its socket: it serves a new one, as a plugin does
    plugin = UnixSockets.serve(directory.resolve("cores.sock"), new TwoChips());
    register();
    assertThat(kubelet.pickHealthy(RESOURCE, 1, List.of())).hasSize(1);
  }

  /** Registers {@link TwoChips} and waits for its devices. */
  private void register() {
    ManagedChannel channel = UnixSockets.dial(directory.resolve(KubeletEmulator.KUBELET_SOCKET));
    try {
      RegistrationGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .register(
              RegisterRequest.newBuilder()
                  .setVersion("v1beta1")
                  .setEndpoint("cores.sock")
                  .setResourceName(RESOURCE)
                  .build());
    } finally {
      channel.shutdownNow();
    }
    kubelet.awaitDevices(List.of(RESOURCE), Duration.ofSeconds(10));
  }

  /** 200 AI Core devices: 100 of chip a, then 100 of chip b. */
  private static final class TwoChips extends DevicePluginGrpc.DevicePluginImplBase {
    @Override
    public void getDevicePluginOptions(
        Empty request, StreamObserver<DevicePluginOptions> response) {
      response.onNext(DevicePluginOptions.getDefaultInstance());
      response.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
      ListAndWatchResponse.Builder devices = ListAndWatchResponse.newBuilder();
      for (String chip : List.of("chip-a", "chip-b")) {
        for (int unit = 0; unit < 100; unit++) {
          devices.addDevices(Device.newBuilder().setID(chip + "-core" + unit).setHealth("Healthy"));
        }
      }
      response.onNext(devices.build()); // the stream stays open, as a plugin's does
    }
  }
}
