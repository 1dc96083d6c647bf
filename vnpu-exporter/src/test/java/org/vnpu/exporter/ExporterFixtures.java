package org.vnpu.exporter;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.driver.SimulatedNpuDriver;

/**
 * A node with simulated chips, its registration, and pods with vNPUs, for the exporter's tests and
 * benchmark.
 */
public final class ExporterFixtures {

  private ExporterFixtures() {}

  /** The die ID the simulated driver gives chip {@code index} of {@code node}. */
  public static String die(String node, int index) {
    return "SIM-" + node + "-" + index;
  }

  /**
   * Creates {@code node} with {@code chips} 910B3 in a simulated inventory, and its registration.
   */
  public static SimulatedNpuDriver node(
      KubernetesClient client, Path directory, String node, int chips, int maxShares) {
    try {
      Path inventory = directory.resolve(node + "-inventory.yaml");
      Files.writeString(
          inventory,
          "chips:\n  - {type: 910B3, aiCoreUtilization: 42, memoryUsedMiB: 10240, temperatureCelsius: 47}\n"
              + (chips > 1 ? "  - {type: 910B3, count: " + (chips - 1) + "}\n" : ""));
      SimulatedNpuDriver driver =
          new SimulatedNpuDriver(inventory, node, ChipCatalog.builtIn(), Clock.systemUTC());
      List<RegisteredChip> registered = new ArrayList<>(driver.chips());
      client
          .nodes()
          .resource(
              new NodeBuilder()
                  .withNewMetadata()
                  .withName(node)
                  .withAnnotations(
                      Map.of(
                          AnnotationKeys.NODE_REGISTER,
                          new PayloadCodec()
                              .encodeRegistration(
                                  new NodeRegistration(SplitMode.SOFT, maxShares, registered))))
                  .endMetadata()
                  .build())
          .create();
      return driver;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A soft share of {@code cores} % and {@code memoryMiB} on one chip. */
  public static VnpuAssignment soft(int chip, String dieId, int cores, long memoryMiB) {
    return new VnpuAssignment(
        chip, dieId, "910B3", memoryMiB, cores, SplitMode.SOFT, false, AiCorePolicy.ELASTIC, null);
  }

  /** One pod with one container holding {@code vnpus}. */
  public static PodAllocations.PodVnpus pod(
      String uid,
      String namespace,
      String name,
      String node,
      String container,
      VnpuAssignment... vnpus) {
    return new PodAllocations.PodVnpus(
        uid,
        namespace,
        name,
        new PodAllocation(
            uid, node, List.of(new ContainerAllocation(container, false, List.of(vnpus)))),
        uid);
  }

  /** The Prometheus text exposition of {@code snapshots}. */
  public static String text(MetricSnapshots snapshots) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      PrometheusTextFormatWriter.create().write(out, snapshots, EscapingScheme.DEFAULT);
      return out.toString(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
