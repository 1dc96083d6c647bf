package org.vnpu.kubelet;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.vnpu.kubelet.deviceplugin.v1beta1.AllocateRequest;
import org.vnpu.kubelet.deviceplugin.v1beta1.AllocateResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.Device;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.vnpu.kubelet.deviceplugin.v1beta1.Empty;
import org.vnpu.kubelet.deviceplugin.v1beta1.RegisterRequest;
import org.vnpu.kubelet.deviceplugin.v1beta1.RegistrationGrpc;

/**
 * The device-manager half of a kubelet, over real Unix sockets: serves {@code Registration} on
 * {@code <dir>/kubelet.sock}; on {@code Register} checks the request as the kubelet does, dials the
 * plugin's endpoint, asks for its options and keeps its {@code ListAndWatch} stream open; sends
 * {@code Allocate} one container at a time. {@link #restart()} does what a kubelet restart does to
 * the directory: deletes the sockets and serves a new {@code kubelet.sock}. When a plugin's stream
 * ends, its devices turn unhealthy at once and the resource is gone after the endpoint's grace
 * period, 5 minutes ({@code pkg/kubelet/cm/devicemanager/manager.go}: {@code PluginDisconnected}
 * marks the resource unhealthy; {@code GetCapacity} drops it after {@code
 * endpointStopGracePeriod}).
 */
public final class KubeletEmulator implements AutoCloseable {

  /** The kubelet's socket file name. */
  public static final String KUBELET_SOCKET = "kubelet.sock";

  /** A qualified name with a DNS-subdomain prefix, as extended resource names must be. */
  private static final Pattern EXTENDED_RESOURCE =
      Pattern.compile(
          "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
              + "/(?=.{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

  /** {@code devicemanager endpointStopGracePeriod}. */
  public static final Duration ENDPOINT_STOP_GRACE_PERIOD = Duration.ofMinutes(5);

  private final Path directory;
  private volatile Duration endpointStopGracePeriod = ENDPOINT_STOP_GRACE_PERIOD;
  private final Map<String, PluginEndpoint> plugins = new ConcurrentHashMap<>();

  /**
   * The resources registered before a restart, and when it was, as the kubelet's checkpoint keeps
   * them: known, with no devices, until their plugin registers again ({@code
   * devicemanager/manager.go readCheckpoint}, a stopped endpoint each) or the endpoint's grace
   * ends.
   */
  private final Map<String, Instant> checkpointed = new ConcurrentHashMap<>();

  private final List<Registration> registrations = new CopyOnWriteArrayList<>();
  private final List<AllocateCall> allocateCalls = new CopyOnWriteArrayList<>();
  private Server server;

  /** One accepted registration. */
  public record Registration(String resourceName, String endpoint, Instant at) {}

  /** One {@code Allocate} call: the resource and the device IDs sent, in the order sent. */
  public record AllocateCall(String resource, List<String> deviceIds) {}

  public KubeletEmulator(Path directory) {
    this.directory = directory;
  }

  /** Shortens the time a disconnected plugin's resource stays (tests; the kubelet's is fixed). */
  public KubeletEmulator endpointStopGracePeriod(Duration period) {
    this.endpointStopGracePeriod = period;
    return this;
  }

  /** Serves {@code kubelet.sock}. */
  public KubeletEmulator start() {
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server = UnixSockets.serve(directory.resolve(KUBELET_SOCKET), new RegistrationService());
    return this;
  }

  /** Like a kubelet restart: drops every plugin, deletes the sockets, serves a new one. */
  public void restart() {
    Instant now = Instant.now();
    plugins.keySet().forEach(resource -> checkpointed.put(resource, now));
    stop();
    deleteSockets();
    start();
  }

  /** Deletes the sockets in the directory, as a starting kubelet does (the checkpoint stays). */
  public void deleteSockets() {
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.toList()) {
        if (!Files.isDirectory(file) && !file.getFileName().toString().endsWith("checkpoint")) {
          Files.delete(file);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Stops serving and drops every plugin connection, leaving the files as they are. */
  public void stop() {
    plugins.values().forEach(plugin -> plugin.channel.shutdownNow());
    plugins.clear();
    if (server != null) {
      server.shutdownNow();
      awaitTermination(server);
      server = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** Every registration accepted so far, in order. */
  public List<Registration> registrations() {
    return List.copyOf(registrations);
  }

  /** The resources registered and not yet dropped after a disconnect, sorted. */
  public List<String> resources() {
    plugins.keySet().forEach(this::current);
    return plugins.keySet().stream().sorted().toList();
  }

  /** The last device snapshot of {@code resource}; empty before one arrived or once dropped. */
  public List<Device> devices(String resource) {
    PluginEndpoint plugin = current(resource);
    return plugin == null ? List.of() : plugin.devices;
  }

  /** The plugin of {@code resource}, dropped when it has been disconnected past the grace. */
  private PluginEndpoint current(String resource) {
    PluginEndpoint plugin = plugins.get(resource);
    if (plugin != null
        && plugin.stopped != null
        && Instant.now().isAfter(plugin.stopped.plus(endpointStopGracePeriod))) {
      plugins.remove(resource, plugin);
      return null;
    }
    return plugin;
  }

  /** Whether {@code resource}'s plugin is registered and its ListAndWatch stream is open. */
  public boolean connected(String resource) {
    PluginEndpoint plugin = plugins.get(resource);
    return plugin != null && plugin.streamOpen;
  }

  /** The options {@code resource}'s plugin reported when it connected. */
  public DevicePluginOptions options(String resource) {
    return plugin(resource).options;
  }

  /** Every {@code Allocate} call made so far, in order. */
  public List<AllocateCall> allocateCalls() {
    return List.copyOf(allocateCalls);
  }

  /** One {@code Allocate} call for one container, as the kubelet makes it. */
  public ContainerAllocateResponse allocate(String resource, List<String> deviceIds) {
    allocateCalls.add(new AllocateCall(resource, List.copyOf(deviceIds)));
    AllocateResponse response =
        DevicePluginGrpc.newBlockingStub(plugin(resource).channel)
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .allocate(
                AllocateRequest.newBuilder()
                    .addContainerRequests(
                        ContainerAllocateRequest.newBuilder().addAllDevicesIds(deviceIds))
                    .build());
    if (response.getContainerResponsesCount() != 1) {
      throw new IllegalStateException(
          "one container request got " + response.getContainerResponsesCount() + " responses");
    }
    return response.getContainerResponses(0);
  }

  /**
   * {@code count} healthy device IDs of {@code resource} not in {@code taken}, as the kubelet picks
   * them when the plugin offers no preferred allocation: in no particular order, for it ranges over
   * a Go set ({@code devicemanager/manager.go devicesToAllocate}, {@code allocateRemainingFrom}).
   * The real kubelet's IDs spread over the chips (docs/sandbox.md, the kubelet agreement); so do
   * these. IllegalStateException when fewer are free.
   */
  public List<String> pickHealthy(String resource, int count, Collection<String> taken) {
    // kubelet devicemanager/manager.go devicesToAllocate() (v1.34.1) checks the registration, then
    // that some device is healthy, then the count.
    if (current(resource) == null && !restoredFromCheckpoint(resource)) {
      throw new IllegalStateException("cannot allocate unregistered device " + resource);
    }
    List<String> healthy =
        devices(resource).stream()
            .filter(device -> device.getHealth().equals("Healthy"))
            .map(Device::getID)
            .toList();
    if (healthy.isEmpty()) {
      throw new IllegalStateException(
          "no healthy devices present; cannot allocate unhealthy devices " + resource);
    }
    List<String> free = new ArrayList<>(healthy);
    free.removeAll(taken);
    if (free.size() < count) {
      throw new IllegalStateException(
          "requested number of devices unavailable for "
              + resource
              + ". Requested: "
              + count
              + ", Available: "
              + free.size());
    }
    Collections.shuffle(free);
    return List.copyOf(free.subList(0, count));
  }

  private boolean restoredFromCheckpoint(String resource) {
    Instant restarted = checkpointed.get(resource);
    return restarted != null && Instant.now().isBefore(restarted.plus(endpointStopGracePeriod));
  }

  private PluginEndpoint plugin(String resource) {
    PluginEndpoint plugin = plugins.get(resource);
    if (plugin == null) {
      throw new IllegalStateException(resource + " is not registered");
    }
    return plugin;
  }

  private static void awaitTermination(Server server) {
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {
    @Override
    public void register(RegisterRequest request, StreamObserver<Empty> response) {
      if (!request.getVersion().equals("v1beta1")) {
        response.onError(
            Status.INVALID_ARGUMENT
                .withDescription("unsupported device plugin API version " + request.getVersion())
                .asRuntimeException());
        return;
      }
      String resource = request.getResourceName();
      // kubelet pkg/kubelet/cm/devicemanager/plugin/v1beta1/server.go isVersionCompatible and
      // Register(): the name must be an extended resource name (v1helper.IsExtendedResourceName).
      if (!EXTENDED_RESOURCE.matcher(resource).matches()
          || resource.startsWith("kubernetes.io/")
          || resource.startsWith("requests.")) {
        response.onError(
            Status.INVALID_ARGUMENT
                .withDescription("invalid extended resource name " + resource)
                .asRuntimeException());
        return;
      }
      ManagedChannel channel = UnixSockets.dial(directory.resolve(request.getEndpoint()));
      try {
        DevicePluginOptions options =
            DevicePluginGrpc.newBlockingStub(channel)
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .getDevicePluginOptions(Empty.getDefaultInstance());
        PluginEndpoint plugin = new PluginEndpoint(channel, options);
        PluginEndpoint previous = plugins.put(resource, plugin);
        if (previous != null) {
          previous.channel.shutdownNow();
        }
        // The stream outlives this Register call, whose context is cancelled when it returns.
        Context.current()
            .fork()
            .run(
                () ->
                    DevicePluginGrpc.newStub(channel)
                        .listAndWatch(Empty.getDefaultInstance(), plugin.watch()));
        registrations.add(new Registration(resource, request.getEndpoint(), Instant.now()));
        response.onNext(Empty.getDefaultInstance());
        response.onCompleted();
      } catch (RuntimeException e) {
        channel.shutdownNow();
        response.onError(
            Status.UNAVAILABLE
                .withDescription("cannot reach plugin " + request.getEndpoint() + ": " + e)
                .asRuntimeException());
      }
    }
  }

  /**
   * Waits up to {@code timeout} for the {@code count}th registration of {@code resource};
   * IllegalStateException when it does not come.
   */
  public Registration awaitRegistration(String resource, int count, Duration timeout) {
    await(
        () -> registrationsOf(resource).size() >= count,
        timeout,
        () -> "no registration #" + count + " of " + resource + "; got " + registrations);
    return registrationsOf(resource).get(count - 1);
  }

  /**
   * Waits up to {@code timeout} until every one of {@code resources} has devices, as a kubelet
   * reports its node ready once its device plugins did; IllegalStateException when they do not.
   */
  public void awaitDevices(Collection<String> resources, Duration timeout) {
    await(
        () -> resources.stream().allMatch(resource -> !devices(resource).isEmpty()),
        timeout,
        () -> "devices of only " + resources() + ", expected " + resources);
  }

  private static void await(BooleanSupplier done, Duration timeout, Supplier<String> missing) {
    Instant deadline = Instant.now().plus(timeout);
    while (!done.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException(missing.get() + " within " + timeout);
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  /** The registrations of {@code resource} so far, in order. */
  public List<Registration> registrationsOf(String resource) {
    return registrations.stream().filter(r -> r.resourceName().equals(resource)).toList();
  }
}
