package org.vnpu.kubelet;

import io.grpc.ManagedChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.vnpu.kubelet.dra.v1.Claim;
import org.vnpu.kubelet.dra.v1.DRAPluginGrpc;
import org.vnpu.kubelet.dra.v1.NodePrepareResourceResponse;
import org.vnpu.kubelet.dra.v1.NodePrepareResourcesRequest;
import org.vnpu.kubelet.dra.v1.NodePrepareResourcesResponse;
import org.vnpu.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import org.vnpu.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import org.vnpu.kubelet.pluginregistration.InfoRequest;
import org.vnpu.kubelet.pluginregistration.PluginInfo;
import org.vnpu.kubelet.pluginregistration.RegistrationGrpc;
import org.vnpu.kubelet.pluginregistration.RegistrationStatus;

/**
 * The DRA half of a kubelet, over real Unix sockets: watches the plugin-registration directory as
 * the kubelet's plugin watcher does (sockets whose name starts with "." are ignored), calls {@code
 * GetInfo}, accepts a {@code DRAPlugin} that supports {@code v1.DRAPlugin} at an endpoint no other
 * registration uses, dials its endpoint and answers {@code NotifyRegistrationStatus}; a removed
 * registration socket deregisters the plugin. Then it calls {@code NodePrepareResources} and {@code
 * NodeUnprepareResources} as pods come and go, refusing an answer about claims it did not ask for
 * or one that leaves a claim out, and gives a container the devices prepared for the request it
 * names.
 *
 * <p>As the kubelet's DRA manager ({@code pkg/kubelet/cm/dra}, {@code wipeResourceSlices}), it
 * deletes every ResourceSlice of its node when it starts, and a driver's slices 30 s after that
 * driver deregistered unless it registered again.
 */
public final class DraKubeletEmulator implements AutoCloseable {

  /** The kubelet's wait before it deletes a deregistered driver's slices. */
  public static final Duration WIPING_DELAY = Duration.ofSeconds(30);

  /** Deletes this node's ResourceSlices: of {@code driver}, or of every driver when null. */
  @FunctionalInterface
  public interface SliceWiper {
    void wipe(String driver);
  }

  private final Path registry;
  private final SliceWiper wiper;
  private volatile Duration wipingDelay = WIPING_DELAY;
  private final Map<Path, Plugin> bySocket = new ConcurrentHashMap<>();
  private final List<String> rejections = new CopyOnWriteArrayList<>();
  private final Set<Path> refused = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService watcher =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "dra-plugin-watcher");
            thread.setDaemon(true);
            return thread;
          });

  /** A registered plugin. */
  public record Plugin(PluginInfo info, ManagedChannel channel) {}

  /**
   * @param wiper deletes the node's ResourceSlices in the API server, as the kubelet does
   */
  public DraKubeletEmulator(Path registry, SliceWiper wiper) {
    this.registry = registry;
    this.wiper = wiper;
  }

  /** Shortens the wait before a deregistered driver's slices are deleted (tests). */
  public DraKubeletEmulator wipingDelay(Duration delay) {
    this.wipingDelay = delay;
    return this;
  }

  /** Deletes the node's slices, as a starting kubelet does, and watches the directory. */
  public DraKubeletEmulator start() {
    try {
      Files.createDirectories(registry);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    wiper.wipe(null);
    watcher.scheduleWithFixedDelay(this::scan, 0, 20, TimeUnit.MILLISECONDS);
    return this;
  }

  /** Why registrations were refused so far. */
  public List<String> rejections() {
    return List.copyOf(rejections);
  }

  /** The plugin registered as {@code driver}, waiting up to {@code timeout}. */
  public Plugin awaitPlugin(String driver, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      for (Plugin plugin : bySocket.values()) {
        if (plugin.info().getName().equals(driver)) {
          return plugin;
        }
      }
      sleep();
    }
    throw new IllegalStateException(
        "no DRA plugin " + driver + " registered within " + timeout + "; refused: " + rejections);
  }

  /** Whether a plugin for {@code driver} is registered now. */
  public boolean registered(String driver) {
    return bySocket.values().stream().anyMatch(p -> p.info().getName().equals(driver));
  }

  /**
   * {@code NodePrepareResources} of {@code claims}; IllegalStateException, with the kubelet's
   * message, when the answer names a claim not asked for or leaves one out ({@code
   * pkg/kubelet/cm/dra/manager.go}, {@code prepareResources}).
   */
  public NodePrepareResourcesResponse prepare(String driver, List<Claim> claims) {
    NodePrepareResourcesResponse response =
        DRAPluginGrpc.newBlockingStub(plugin(driver).channel())
            .withDeadlineAfter(45, TimeUnit.SECONDS)
            .nodePrepareResources(
                NodePrepareResourcesRequest.newBuilder().addAllClaims(claims).build());
    Set<String> asked = claims.stream().map(Claim::getUid).collect(Collectors.toSet());
    for (String uid : response.getClaimsMap().keySet()) {
      if (!asked.contains(uid)) {
        throw new IllegalStateException(
            "NodePrepareResources returned result for unknown claim UID " + uid);
      }
    }
    if (response.getClaimsCount() != asked.size()) {
      throw new IllegalStateException(
          "NodePrepareResources left out "
              + (asked.size() - response.getClaimsCount())
              + " claims");
    }
    return response;
  }

  /**
   * The CDI devices a container gets from a prepared claim when it names {@code request} (empty:
   * the whole claim): the devices whose request names contain it ({@code pkg/kubelet/cm/dra/
   * manager.go}, {@code GetResources}).
   */
  public static List<String> cdiDevices(NodePrepareResourceResponse prepared, String request) {
    return prepared.getDevicesList().stream()
        .filter(device -> request.isEmpty() || device.getRequestNamesList().contains(request))
        .flatMap(device -> device.getCdiDeviceIdsList().stream())
        .toList();
  }

  public NodeUnprepareResourcesResponse unprepare(String driver, List<Claim> claims) {
    return DRAPluginGrpc.newBlockingStub(plugin(driver).channel())
        .withDeadlineAfter(45, TimeUnit.SECONDS)
        .nodeUnprepareResources(
            NodeUnprepareResourcesRequest.newBuilder().addAllClaims(claims).build());
  }

  private Plugin plugin(String driver) {
    return bySocket.values().stream()
        .filter(p -> p.info().getName().equals(driver))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(driver + " is not registered"));
  }

  private void scan() {
    List<Path> sockets;
    try (Stream<Path> files = Files.list(registry)) {
      sockets =
          files
              .filter(f -> !f.getFileName().toString().startsWith("."))
              .filter(f -> f.getFileName().toString().endsWith(".sock"))
              .toList();
    } catch (IOException e) {
      return;
    }
    for (Path known : List.copyOf(bySocket.keySet())) {
      if (!sockets.contains(known)) {
        Plugin gone = bySocket.remove(known);
        gone.channel().shutdownNow();
        wipeLater(gone.info().getName());
      }
    }
    refused.retainAll(sockets);
    for (Path socket : sockets) {
      if (!bySocket.containsKey(socket) && !refused.contains(socket)) {
        register(socket);
      }
    }
  }

  private void wipeLater(String driver) {
    watcher.schedule(
        () -> {
          if (!registered(driver)) {
            wiper.wipe(driver);
          }
        },
        wipingDelay.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private void register(Path socket) {
    ManagedChannel registration = UnixSockets.dial(socket);
    try {
      RegistrationGrpc.RegistrationBlockingStub stub =
          RegistrationGrpc.newBlockingStub(registration).withDeadlineAfter(5, TimeUnit.SECONDS);
      PluginInfo info = stub.getInfo(InfoRequest.getDefaultInstance());
      String problem = validate(info);
      stub.notifyRegistrationStatus(
          RegistrationStatus.newBuilder()
              .setPluginRegistered(problem == null)
              .setError(problem == null ? "" : problem)
              .build());
      if (problem != null) {
        rejections.add(socket.getFileName() + ": " + problem);
        refused.add(socket);
        return;
      }
      bySocket.put(socket, new Plugin(info, UnixSockets.dial(Path.of(info.getEndpoint()))));
    } catch (RuntimeException e) {
      rejections.add(socket.getFileName() + ": " + e.getMessage());
      refused.add(socket);
    } finally {
      registration.shutdownNow();
    }
  }

  private String validate(PluginInfo info) {
    for (Map.Entry<Path, Plugin> other : bySocket.entrySet()) {
      if (other.getValue().info().getEndpoint().equals(info.getEndpoint())) {
        return "DRA plugin with endpoint "
            + info.getEndpoint()
            + " already registered by "
            + other.getKey().getFileName();
      }
    }
    if (!info.getType().equals(KubeletPlugins.DRA_PLUGIN)) {
      return "plugin type " + info.getType() + " is not " + KubeletPlugins.DRA_PLUGIN;
    }
    if (!info.getSupportedVersionsList().contains(KubeletPlugins.DRA_V1)) {
      return "none of " + info.getSupportedVersionsList() + " is " + KubeletPlugins.DRA_V1;
    }
    if (!Path.of(info.getEndpoint()).isAbsolute() || !Files.exists(Path.of(info.getEndpoint()))) {
      return "endpoint " + info.getEndpoint() + " is not an existing absolute path";
    }
    return null;
  }

  private static void sleep() {
    try {
      Thread.sleep(10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    watcher.shutdownNow();
    bySocket.values().forEach(plugin -> plugin.channel().shutdownNow());
    bySocket.clear();
  }
}
