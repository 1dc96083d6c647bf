package org.vnpu.kubelet;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.vnpu.kubelet.podresources.v1.ContainerDevices;
import org.vnpu.kubelet.podresources.v1.ContainerResources;
import org.vnpu.kubelet.podresources.v1.GetPodResourcesRequest;
import org.vnpu.kubelet.podresources.v1.GetPodResourcesResponse;
import org.vnpu.kubelet.podresources.v1.ListPodResourcesRequest;
import org.vnpu.kubelet.podresources.v1.ListPodResourcesResponse;
import org.vnpu.kubelet.podresources.v1.PodResources;
import org.vnpu.kubelet.podresources.v1.PodResourcesListerGrpc;

/**
 * The kubelet's pod-resources service ({@code v1.PodResourcesLister}) on {@code
 * pod-resources/kubelet.sock}, answering from the pods the kubelet half of the sandbox admitted, as
 * the kubelet does (1.34+, {@code pkg/kubelet/apis/podresources/server_v1.go}):
 *
 * <ul>
 *   <li>{@code List} reports the active pods only — admitted and not terminated (gate {@code
 *       KubeletPodResourcesListUseActivePods}, on since 1.34, {@code GetActivePods});
 *   <li>per pod, every app container of its spec, in spec order; init containers are not listed
 *       (restartable ones are, but the sandbox runs none);
 *   <li>per container, one {@code ContainerDevices} per device it was allocated ({@code
 *       GetDevices}), in no particular order, as the real kubelet answered on the real node;
 *   <li>{@code Get} answers one active pod; for any other it fails as the kubelet does, with a
 *       plain error (gRPC {@code UNKNOWN}) "pod NAME not found in NAMESPACE".
 * </ul>
 */
public final class PodResourcesEmulator implements AutoCloseable {

  /** The directory under the kubelet's root that holds the socket. */
  public static final String DIRECTORY = "pod-resources";

  /** The socket's file name. */
  public static final String SOCKET = "kubelet.sock";

  /**
   * One pod the kubelet admitted and has not seen terminate.
   *
   * @param containers its app containers, in spec order
   * @param devices per container name, per resource name, the device IDs allocated
   */
  public record ActivePod(
      String namespace,
      String name,
      List<String> containers,
      Map<String, Map<String, List<String>>> devices) {}

  private final Path socket;
  private final Supplier<List<ActivePod>> activePods;
  private Server server;

  public PodResourcesEmulator(Path socket, Supplier<List<ActivePod>> activePods) {
    this.socket = socket;
    this.activePods = activePods;
  }

  public PodResourcesEmulator start() {
    try {
      Files.createDirectories(socket.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server = UnixSockets.serve(socket, new Lister());
    return this;
  }

  @Override
  public void close() {
    if (server != null) {
      server.shutdownNow();
      try {
        server.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      server = null;
    }
  }

  /**
   * One {@code ContainerDevices} per device ID, as the kubelet lists them ({@code
   * pkg/kubelet/cm/container_manager.go containerDevicesFromResourceDeviceInstances}: a loop over
   * the resources and their devices, both Go maps, so in no particular order), never one per
   * resource with all its IDs: a reader must gather a container's IDs of a resource itself. The
   * kubelet also copies a device's NUMA node into its entry; this leaves topology out.
   */
  private static PodResources resources(ActivePod pod) {
    PodResources.Builder builder =
        PodResources.newBuilder().setName(pod.name()).setNamespace(pod.namespace());
    for (String container : pod.containers()) {
      List<ContainerDevices> devices = new ArrayList<>();
      pod.devices()
          .getOrDefault(container, Map.of())
          .forEach(
              (resource, ids) ->
                  ids.forEach(
                      id ->
                          devices.add(
                              ContainerDevices.newBuilder()
                                  .setResourceName(resource)
                                  .addDeviceIds(id)
                                  .build())));
      Collections.shuffle(devices);
      builder.addContainers(
          ContainerResources.newBuilder().setName(container).addAllDevices(devices));
    }
    return builder.build();
  }

  private final class Lister extends PodResourcesListerGrpc.PodResourcesListerImplBase {

    @Override
    public void list(
        ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> response) {
      ListPodResourcesResponse.Builder answer = ListPodResourcesResponse.newBuilder();
      activePods.get().forEach(pod -> answer.addPodResources(resources(pod)));
      response.onNext(answer.build());
      response.onCompleted();
    }

    @Override
    public void get(
        GetPodResourcesRequest request, StreamObserver<GetPodResourcesResponse> response) {
      Optional<ActivePod> pod =
          activePods.get().stream()
              .filter(p -> p.namespace().equals(request.getPodNamespace()))
              .filter(p -> p.name().equals(request.getPodName()))
              .findFirst();
      if (pod.isEmpty()) {
        // server_v1.go Get(): "pod %s not found in %s" from the pods provider.
        response.onError(
            Status.UNKNOWN
                .withDescription(
                    "pod " + request.getPodName() + " not found in " + request.getPodNamespace())
                .asRuntimeException());
        return;
      }
      response.onNext(
          GetPodResourcesResponse.newBuilder().setPodResources(resources(pod.get())).build());
      response.onCompleted();
    }
  }
}
