package org.vnpu.deviceplugin.kubelet;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.deviceplugin.allocate.AllocationRefusedException;
import org.vnpu.deviceplugin.allocate.Allocator;
import org.vnpu.handouts.Handout;
import org.vnpu.kubelet.deviceplugin.v1beta1.AllocateRequest;
import org.vnpu.kubelet.deviceplugin.v1beta1.AllocateResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.vnpu.kubelet.deviceplugin.v1beta1.DeviceSpec;
import org.vnpu.kubelet.deviceplugin.v1beta1.Empty;
import org.vnpu.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.Mount;
import org.vnpu.kubelet.deviceplugin.v1beta1.PreStartContainerRequest;
import org.vnpu.kubelet.deviceplugin.v1beta1.PreStartContainerResponse;

/**
 * The {@code DevicePlugin} service of one {@link KubeletResource}: streams its devices in {@code
 * ListAndWatch} (a full snapshot on every change) and answers {@code Allocate} through the {@link
 * Allocator} when the resource hands out allocations, with empty answers when it only counts.
 * Neither {@code GetPreferredAllocation} nor {@code PreStartContainer} is offered: the kubelet's
 * choice of IDs does not decide placement, and nothing needs doing before a container starts.
 */
public final class DevicePluginService extends DevicePluginGrpc.DevicePluginImplBase {

  private static final Logger LOG = LoggerFactory.getLogger(DevicePluginService.class);

  private final KubeletResource resource;
  private final Allocator allocator;
  private final Set<StreamObserver<ListAndWatchResponse>> watchers = ConcurrentHashMap.newKeySet();
  private volatile ListAndWatchResponse snapshot = ListAndWatchResponse.getDefaultInstance();

  /**
   * @param allocator hands out the allocations of a resource that {@link
   *     KubeletResource#handsOut()}
   */
  public DevicePluginService(KubeletResource resource, Allocator allocator) {
    this.resource = resource;
    this.allocator = allocator;
  }

  public KubeletResource resource() {
    return resource;
  }

  /** Sends the devices {@code chips} make of the resource to every open ListAndWatch stream. */
  public void publish(List<RegisteredChip> chips) {
    ListAndWatchResponse next =
        ListAndWatchResponse.newBuilder().addAllDevices(resource.devices().apply(chips)).build();
    synchronized (this) {
      snapshot = next;
      for (StreamObserver<ListAndWatchResponse> watcher : watchers) {
        send(watcher, next);
      }
    }
  }

  @Override
  public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> response) {
    response.onNext(DevicePluginOptions.getDefaultInstance());
    response.onCompleted();
  }

  @Override
  public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
    ServerCallStreamObserver<ListAndWatchResponse> stream =
        (ServerCallStreamObserver<ListAndWatchResponse>) response;
    stream.setOnCancelHandler(() -> watchers.remove(stream));
    synchronized (this) {
      watchers.add(stream);
      send(stream, snapshot);
    }
    LOG.info(
        "kubelet opened ListAndWatch of {}; {} devices",
        resource.name(),
        snapshot.getDevicesCount());
  }

  @Override
  public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> response) {
    AllocateResponse.Builder answer = AllocateResponse.newBuilder();
    // The kubelet's order of Allocate calls and the IDs it chose, for comparing kubelets.
    LOG.info(
        AllocateLog.line(
            resource.name(),
            request.getContainerRequestsList().stream()
                .map(ContainerAllocateRequest::getDevicesIdsList)
                .<List<String>>map(List::copyOf)
                .toList()));
    try {
      for (ContainerAllocateRequest container : request.getContainerRequestsList()) {
        answer.addContainerResponses(
            resource.handsOut()
                ? toProto(allocator.allocate(container.getDevicesIdsList()))
                : ContainerAllocateResponse.getDefaultInstance());
      }
    } catch (AllocationRefusedException e) {
      LOG.warn("Allocate refused: {}", e.getMessage());
      response.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asException());
      return;
    } catch (RuntimeException e) {
      LOG.error("Allocate failed", e);
      response.onError(Status.INTERNAL.withDescription("vNPU Allocate failed: " + e).asException());
      return;
    }
    response.onNext(answer.build());
    response.onCompleted();
  }

  @Override
  public void preStartContainer(
      PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> response) {
    response.onNext(PreStartContainerResponse.getDefaultInstance());
    response.onCompleted();
  }

  /** Ends every stream, as happens when the plugin stops. */
  public synchronized void closeStreams() {
    watchers.forEach(StreamObserver::onCompleted);
    watchers.clear();
  }

  private void send(StreamObserver<ListAndWatchResponse> watcher, ListAndWatchResponse message) {
    try {
      watcher.onNext(message);
    } catch (RuntimeException e) {
      LOG.debug("dropping a closed ListAndWatch stream: {}", e.toString());
      watchers.remove(watcher);
    }
  }

  private static ContainerAllocateResponse toProto(Handout handout) {
    ContainerAllocateResponse.Builder proto =
        ContainerAllocateResponse.newBuilder().putAllEnvs(handout.environment());
    for (Handout.MountPoint mount : handout.mounts()) {
      proto.addMounts(
          Mount.newBuilder()
              .setContainerPath(mount.containerPath())
              .setHostPath(mount.hostPath())
              .setReadOnly(mount.readOnly()));
    }
    for (Handout.DeviceNode device : handout.devices()) {
      proto.addDevices(
          DeviceSpec.newBuilder()
              .setContainerPath(device.containerPath())
              .setHostPath(device.hostPath())
              .setPermissions(device.permissions()));
    }
    return proto.build();
  }
}
