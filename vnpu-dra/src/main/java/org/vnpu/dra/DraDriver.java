package org.vnpu.dra;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.Server;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.driver.NpuDriver;
import org.vnpu.driver.ReadingsPublisher;
import org.vnpu.handouts.Handouts;
import org.vnpu.handouts.NodeFiles;
import org.vnpu.kube.DaemonThreads;
import org.vnpu.kubelet.UnixSockets;

/**
 * One running DRA driver: serves the DRA service and the registration socket the kubelet's plugin
 * watcher finds, publishes the node's ResourceSlices when its chips change (health included), and
 * prepares claims from the checkpoint, the ResourceClaims and the chips.
 */
public final class DraDriver implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DraDriver.class);

  private final DraSettings settings;
  private final Server service;
  private final Server registration;
  private final ScheduledExecutorService loop;

  private DraDriver(
      DraSettings settings, Server service, Server registration, ScheduledExecutorService loop) {
    this.settings = settings;
    this.service = service;
    this.registration = registration;
    this.loop = loop;
  }

  /**
   * Starts the driver; the node's slices are published before this returns.
   *
   * @throws IllegalStateException when the API server drops what the sharing mode needs (a feature
   *     gate is off); no slice is left behind
   */
  public static DraDriver start(DraSettings settings, NpuDriver npus, KubernetesClient client)
      throws IOException {
    NodeFiles files = new NodeFiles(settings.stateDirectory()).prepare();
    Checkpoint checkpoint =
        Checkpoint.load(settings.stateDirectory().resolve("dra-checkpoint.json"));
    SlicePublisher publisher = new SlicePublisher(client, settings.driverName(), settings.node());
    AtomicReference<NodeDevices> offered = new AtomicReference<>();
    Runnable refresh = refresh(settings, npus, publisher, offered);
    refresh.run();
    ClaimPreparer preparer =
        new ClaimPreparer(
            client,
            settings.driverName(),
            settings.node(),
            offered::get,
            files,
            new Handouts(files, settings.shimLibrary(), settings.driverMounts()),
            new CdiSpecs(settings.cdiDirectory(), settings.driverName()),
            checkpoint,
            settings.shimLogLevel());
    Files.createDirectories(settings.pluginDirectory());
    Files.createDirectories(settings.registryDirectory());
    Server service = UnixSockets.serve(settings.serviceSocket(), new DraServices.Plugin(preparer));
    Server registration =
        UnixSockets.serve(settings.registrationSocket(), new DraServices.Registration(settings));
    ScheduledExecutorService loop =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("vnpu-dra-slices"));
    long interval = settings.pollInterval().toMillis();
    loop.scheduleWithFixedDelay(
        untilAGateIsOff(refresh), interval, interval, TimeUnit.MILLISECONDS);
    // On the driver's thread: the exporter reads these instead of the chips' device files.
    ReadingsPublisher readings =
        new ReadingsPublisher(npus, settings.stateDirectory(), Clock.systemUTC());
    readings.run();
    loop.scheduleWithFixedDelay(readings, interval, interval, TimeUnit.MILLISECONDS);
    LOG.info(
        "DRA driver {} for node {} started: {} sharing, registration {}, service {}",
        settings.driverName(),
        settings.node(),
        settings.sharing().wireName(),
        settings.registrationSocket(),
        settings.serviceSocket());
    return new DraDriver(settings, service, registration, loop);
  }

  /**
   * Publishes the node's devices when they changed since the last publication, or when the kubelet
   * deleted the node's slices.
   */
  private static Runnable refresh(
      DraSettings settings,
      NpuDriver npus,
      SlicePublisher publisher,
      AtomicReference<NodeDevices> offered) {
    return () -> {
      NodeDevices now =
          NodeDevices.of(
              npus.chips(), settings.sharing(), settings.slicesPerChip(), settings.deviceOrder());
      if (!now.equals(offered.get())) {
        publisher.publish(now);
        offered.set(now);
      } else if (publisher.missing()) {
        LOG.info(
            "this node's ResourceSlices were deleted (the kubelet wipes them when it starts);"
                + " publishing them again");
        publisher.publish(now);
      }
    };
  }

  /** {@code refresh} as a repeated task: a failure is retried, a gate turned off ends it. */
  private static Runnable untilAGateIsOff(Runnable refresh) {
    return () -> {
      try {
        refresh.run();
      } catch (SlicePublisher.GateOffException e) {
        // Thrown out of the task, it ends the refreshes: publishing again would offer the
        // chips without their limits for a moment each time.
        LOG.error("no longer publishing this node's devices: {}", e.getMessage());
        throw e;
      } catch (RuntimeException e) {
        LOG.warn("cannot refresh the node's devices, will retry: {}", e.getMessage());
      }
    };
  }

  /** Stops serving; removing the registration socket deregisters the driver from the kubelet. */
  @Override
  public void close() {
    loop.shutdownNow();
    registration.shutdownNow();
    service.shutdownNow();
    try {
      Files.deleteIfExists(settings.registrationSocket());
      Files.deleteIfExists(settings.serviceSocket());
    } catch (IOException e) {
      LOG.warn("cannot remove the sockets: {}", e.getMessage());
    }
    LOG.info("DRA driver stopped");
  }
}
