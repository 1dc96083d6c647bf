package org.vnpu.exporter;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.driver.NpuDriver;
import org.vnpu.kube.DaemonThreads;

/** One running exporter: a chip poller, a pod informer, the collector and its HTTP server. */
public final class Exporter implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Exporter.class);

  private final ScheduledExecutorService poller;
  private final PodAllocations pods;
  private final ExporterServer server;

  private Exporter(ScheduledExecutorService poller, PodAllocations pods, ExporterServer server) {
    this.poller = poller;
    this.pods = pods;
    this.server = server;
  }

  /**
   * Starts serving; the first poll of the driver happens before this returns.
   *
   * @param verifier checks the signatures of the allocations shown
   */
  public static Exporter start(
      ExporterSettings settings,
      NpuDriver driver,
      AllocationVerifier verifier,
      KubernetesClient client)
      throws IOException {
    ChipPoller chips = new ChipPoller(driver, client, settings.node());
    chips.poll();
    ScheduledExecutorService poller =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("vnpu-exporter-poll"));
    long interval = settings.pollInterval().toMillis();
    poller.scheduleWithFixedDelay(chips::poll, interval, interval, TimeUnit.MILLISECONDS);
    PodAllocations pods =
        PodAllocations.watch(client, settings.node(), settings.serverSideNodeFilter(), verifier);
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register(
        new VnpuCollector(
            settings.node(), chips, pods::current, settings.stateDirectory(), System::nanoTime));
    ExporterServer server = ExporterServer.start(settings.address(), registry);
    LOG.info(
        "exporter for node {} serves /metrics on port {} (driver {})",
        settings.node(),
        server.port(),
        driver.name());
    return new Exporter(poller, pods, server);
  }

  /** The port {@code /metrics} is served on. */
  public int port() {
    return server.port();
  }

  @Override
  public void close() {
    server.close();
    pods.close();
    poller.shutdownNow();
  }
}
