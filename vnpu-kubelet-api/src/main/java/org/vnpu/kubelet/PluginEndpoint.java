package org.vnpu.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.time.Instant;
import java.util.List;
import org.vnpu.kubelet.deviceplugin.v1beta1.Device;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.vnpu.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;

/**
 * One registered device plugin as the {@link KubeletEmulator} holds it ({@code devicemanager}'s
 * endpoint): the channel to it, the options it reported, and the devices its ListAndWatch stream
 * last sent.
 */
final class PluginEndpoint {

  final ManagedChannel channel;
  final DevicePluginOptions options;
  volatile List<Device> devices = List.of();
  volatile boolean streamOpen = true;
  volatile Instant stopped;

  PluginEndpoint(ManagedChannel channel, DevicePluginOptions options) {
    this.channel = channel;
    this.options = options;
  }

  /** The observer of its ListAndWatch stream: each snapshot replaces the devices. */
  StreamObserver<ListAndWatchResponse> watch() {
    return new StreamObserver<>() {
      @Override
      public void onNext(ListAndWatchResponse snapshot) {
        devices = List.copyOf(snapshot.getDevicesList());
      }

      @Override
      public void onError(Throwable error) {
        disconnected();
      }

      @Override
      public void onCompleted() {
        disconnected();
      }
    };
  }

  /** {@code PluginDisconnected}: every device of the resource unhealthy, the clock started. */
  private void disconnected() {
    streamOpen = false;
    devices =
        devices.stream().map(device -> device.toBuilder().setHealth("Unhealthy").build()).toList();
    stopped = Instant.now();
  }
}
