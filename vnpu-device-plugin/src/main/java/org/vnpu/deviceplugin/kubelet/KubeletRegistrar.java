package org.vnpu.deviceplugin.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kubelet.UnixSockets;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.vnpu.kubelet.deviceplugin.v1beta1.RegisterRequest;
import org.vnpu.kubelet.deviceplugin.v1beta1.RegistrationGrpc;

/**
 * Keeps every resource registered with the kubelet. Each {@link #check()} makes sure each
 * resource's socket is served (serving starts before registering, as the kubelet requires) and that
 * the current {@code kubelet.sock} has accepted its registration; a kubelet restart deletes our
 * sockets and recreates its own, and the next check serves and registers again. Call {@code
 * check()} often (every 100 ms): it only looks at a few files unless something changed.
 */
public final class KubeletRegistrar implements AutoCloseable {

  /** The kubelet's device-plugin directory on a standard node. */
  public static final Path DEFAULT_DIRECTORY = Path.of("/var/lib/kubelet/device-plugins");

  private static final String API_VERSION = "v1beta1";
  private static final Duration FAILURE_LOG_INTERVAL = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(KubeletRegistrar.class);

  private final Path directory;
  private final KubeletServices services;
  private final Map<String, Endpoint> endpoints = new HashMap<>();
  private long lastFailureLog;

  /** One resource's socket: the server on it and the kubelet socket that accepted it. */
  private static final class Endpoint {
    final DevicePluginService service;
    Server server;
    Object registeredWith;

    Endpoint(DevicePluginService service) {
      this.service = service;
    }
  }

  public KubeletRegistrar(Path directory, KubeletServices services) {
    this.directory = directory;
    this.services = services;
  }

  /**
   * Serves and registers if needed. Never throws: failures are logged and retried by the next call.
   *
   * @return whether every resource is registered with the current kubelet
   */
  public synchronized boolean check() {
    Object kubelet = fileKey(directory.resolve("kubelet.sock"));
    boolean all = true;
    for (DevicePluginService service : services.all()) {
      Endpoint endpoint =
          endpoints.computeIfAbsent(service.resource().name(), name -> new Endpoint(service));
      all &= check(endpoint, kubelet);
    }
    return all;
  }

  private boolean check(Endpoint endpoint, Object kubelet) {
    KubeletResource resource = endpoint.service.resource();
    Path socket = directory.resolve(resource.endpoint());
    if (endpoint.server == null || !Files.exists(socket)) {
      try {
        restartServer(endpoint, socket);
      } catch (RuntimeException e) {
        logFailure("cannot serve " + socket + ", will retry: " + e.getMessage());
        return false;
      }
    }
    if (kubelet == null) {
      endpoint.registeredWith = null;
      logFailure("kubelet socket " + directory.resolve("kubelet.sock") + " does not exist yet");
      return false;
    }
    if (Objects.equals(kubelet, endpoint.registeredWith)) {
      return true;
    }
    try {
      register(resource);
      endpoint.registeredWith = kubelet;
      LOG.info(
          "registered {} with the kubelet at {} (endpoint {})",
          resource.name(),
          directory,
          resource.endpoint());
      return true;
    } catch (RuntimeException e) {
      logFailure("registration of " + resource.name() + " failed, will retry: " + e.getMessage());
      return false;
    }
  }

  @Override
  public synchronized void close() {
    for (Endpoint endpoint : endpoints.values()) {
      endpoint.service.closeStreams();
      if (endpoint.server != null) {
        endpoint.server.shutdownNow();
        endpoint.server = null;
      }
      Path socket = directory.resolve(endpoint.service.resource().endpoint());
      try {
        Files.deleteIfExists(socket);
      } catch (IOException e) {
        LOG.warn("cannot remove {}: {}", socket, e.getMessage());
      }
    }
  }

  private static void restartServer(Endpoint endpoint, Path socket) {
    if (endpoint.server != null) {
      LOG.info("{} was deleted (kubelet restart?); serving it again", socket);
      endpoint.service.closeStreams();
      endpoint.server.shutdownNow();
    }
    endpoint.server = UnixSockets.serve(socket, endpoint.service);
    endpoint.registeredWith = null;
  }

  private void register(KubeletResource resource) {
    ManagedChannel channel = UnixSockets.dial(directory.resolve("kubelet.sock"));
    try {
      RegistrationGrpc.newBlockingStub(channel)
          .withDeadlineAfter(15, TimeUnit.SECONDS)
          .register(
              RegisterRequest.newBuilder()
                  .setVersion(API_VERSION)
                  .setEndpoint(resource.endpoint())
                  .setResourceName(resource.name())
                  .setOptions(DevicePluginOptions.getDefaultInstance())
                  .build());
    } finally {
      channel.shutdownNow();
    }
  }

  private void logFailure(String message) {
    long now = System.nanoTime();
    if (lastFailureLog == 0 || now - lastFailureLog > FAILURE_LOG_INTERVAL.toNanos()) {
      LOG.warn(message);
      lastFailureLog = now;
    }
  }

  /** The file's identity (device and inode), which changes when it is recreated; null if absent. */
  private static Object fileKey(Path file) {
    try {
      return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      LOG.warn("cannot read {}: {}", file, e.getMessage());
      return null;
    }
  }
}
