package org.vnpu.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.driver.NpuDriver;
import org.vnpu.driver.PublishedReadingsDriver;
import org.vnpu.exporter.Exporter;
import org.vnpu.exporter.ExporterSettings;
import org.vnpu.kube.KubeClients;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code vnpu exporter}: Prometheus metrics of one node, run by a DaemonSet. */
@Command(
    name = "exporter",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Serve one node's vNPU metrics for Prometheus.",
      "",
      "Serves the vNPU metrics of one node on /metrics (Prometheus text or OpenMetrics) and"
          + " /healthz until stopped: chips from the driver (or, with --from-device-plugin, from"
          + " the readings the device plugin publishes), vNPUs from the signed allocations of the"
          + " node's pods, usage from the containers' books. Metrics: docs/metrics.md.",
      "",
      VnpuCommand.KUBERNETES_CONNECTION
    })
final class ExporterCommand implements Callable<Integer> {

  @Mixin NodeAgentOptions agent;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      defaultValue = "0.0.0.0:9402",
      description = "Where /metrics and /healthz are served (default: ${DEFAULT-VALUE}).")
  String listen;

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      defaultValue = "/var/run/vnpu",
      description =
          "The device plugin's state directory, where the containers' books are (default:"
              + " ${DEFAULT-VALUE}).")
  Path stateDirectory;

  @Option(
      names = "--from-device-plugin",
      description =
          "Read the chips and their usage from the readings the device plugin (or DRA driver)"
              + " writes into --state-dir, not from the driver: the exporter then needs no device"
              + " files and no privileges (the chart runs it so).")
  boolean fromDevicePlugin;

  @Option(
      names = "--readings-max-age",
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description =
          "With --from-device-plugin, older readings count as a failing driver: the device plugin"
              + " stopped renewing them (default: ${DEFAULT-VALUE}).")
  Duration readingsMaxAge;

  @Mixin VerifyingKeysOption verifyingKeys;

  @Option(
      names = "--watch-all-pods",
      description =
          "Watch every pod and keep this node's here, for API servers without field selectors"
              + " on spec.nodeName (default: select them on the server).")
  boolean watchAllPods;

  @Mixin CatalogOption catalog;

  @Override
  public Integer call() throws IOException, InterruptedException {
    String node = agent.node();
    InetSocketAddress address = Listen.parse(listen);
    AllocationVerifier verifier = verifyingKeys.verifier();
    NpuDriver npus =
        fromDevicePlugin
            ? new PublishedReadingsDriver(stateDirectory, readingsMaxAge, Clock.systemUTC())
            : agent.openDriver(catalog.load());
    KubernetesClient client = KubeClients.fromEnvironment();
    Exporter exporter =
        Exporter.start(
            new ExporterSettings(node, address, stateDirectory, agent.pollInterval, !watchAllPods),
            npus,
            verifier,
            client);
    NodeAgentOptions.runUntilStopped(exporter, client);
    return 0;
  }
}
