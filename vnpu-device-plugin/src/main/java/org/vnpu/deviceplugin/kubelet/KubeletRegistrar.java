package org.vnpu.deviceplugin.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.ResourceNames;
import org.vnpu.kubelet.UnixSockets;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.vnpu.kubelet.deviceplugin.v1beta1.RegisterRequest;
import org.vnpu.kubelet.deviceplugin.v1beta1.RegistrationGrpc;

/**
 * Keeps the plugin registered with the kubelet. Each {@link #check()} makes sure the plugin's
 * socket is served (serving starts before registering, as the kubelet requires) and that the
 * current {@code kubelet.sock} has accepted our registration; a kubelet restart deletes our socket
 * and recreates its own, and the next check serves and registers again. Call {@code check()} often
 * (every 100 ms): it only looks at two files unless something changed.
 */
public final class KubeletRegistrar implements AutoCloseable {

  /** The kubelet's device-plugin directory on a standard node. */
  public static final Path DEFAULT_DIRECTORY = Path.of("/var/lib/kubelet/device-plugins");

  /** The socket file this plugin serves, inside the device-plugin directory. */
  public static final String ENDPOINT = "vnpu.sock";

  private static final String API_VERSION = "v1beta1";
  private static final Duration FAILURE_LOG_INTERVAL = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(KubeletRegistrar.class);

  private final Path directory;
  private final DevicePluginService service;
  private Server server;
  private Object registeredWith;
  private long lastFailureLog;

  public KubeletRegistrar(Path directory, DevicePluginService service) {
    this.directory = directory;
    this.service = service;
  }

  /**
   * Serves and registers if needed. Never throws: failures are logged and retried by the next call.
   *
   * @return whether the plugin is registered with the current kubelet
   */
  public synchronized boolean check() {
    Path socket = directory.resolve(ENDPOINT);
    if (server == null || !Files.exists(socket)) {
      try {
        restartServer(socket);
      } catch (RuntimeException e) {
        logFailure("cannot serve " + socket + ", will retry: " + e.getMessage());
        return false;
      }
    }
    Object kubelet = fileKey(directory.resolve("kubelet.sock"));
    if (kubelet == null) {
      registeredWith = null;
      logFailure("kubelet socket " + directory.resolve("kubelet.sock") + " does not exist yet");
      return false;
    }
    if (Objects.equals(kubelet, registeredWith)) {
      return true;
    }
    try {
      register();
      registeredWith = kubelet;
      LOG.info(
          "registered {} with the kubelet at {} (endpoint {})",
          ResourceNames.VNPU_NUMBER,
          directory,
          ENDPOINT);
      return true;
    } catch (RuntimeException e) {
      logFailure("registration with the kubelet failed, will retry: " + e.getMessage());
      return false;
    }
  }

  @Override
  public synchronized void close() {
    service.closeStreams();
    if (server != null) {
      server.shutdownNow();
      server = null;
    }
    try {
      Files.deleteIfExists(directory.resolve(ENDPOINT));
    } catch (IOException e) {
      LOG.warn("cannot remove {}: {}", directory.resolve(ENDPOINT), e.getMessage());
    }
  }

  private void restartServer(Path socket) {
    if (server != null) {
      LOG.info("{} was deleted (kubelet restart?); serving it again", socket);
      service.closeStreams();
      server.shutdownNow();
    }
    server = UnixSockets.serve(socket, service);
    registeredWith = null;
  }

  private void register() {
    ManagedChannel channel = UnixSockets.dial(directory.resolve("kubelet.sock"));
    try {
      RegistrationGrpc.newBlockingStub(channel)
          .withDeadlineAfter(15, TimeUnit.SECONDS)
          .register(
              RegisterRequest.newBuilder()
                  .setVersion(API_VERSION)
                  .setEndpoint(ENDPOINT)
                  .setResourceName(ResourceNames.VNPU_NUMBER)
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
