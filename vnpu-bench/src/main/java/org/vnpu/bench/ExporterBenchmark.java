package org.vnpu.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.vnpu.api.ShimContract;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.region.BooksFixture;
import org.vnpu.exporter.ChipPoller;
import org.vnpu.exporter.ExporterFixtures;
import org.vnpu.exporter.PodAllocations;
import org.vnpu.exporter.VnpuCollector;

/**
 * One scrape of a node with 16 chips × 64 containers: collect every metric (reading the 1,024
 * containers' books) and write the Prometheus text exposition.
 */
@State(Scope.Benchmark)
@Fork(1)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ExporterBenchmark {

  private static final String NODE = "bench";
  private static final int CHIPS = 16;
  private static final int CONTAINERS = 64;

  private MockApiServer api;
  private KubernetesClient client;
  private VnpuCollector collector;

  @Setup(Level.Trial)
  public void start() throws IOException {
    api = new MockApiServer();
    client = api.client();
    Path directory = Files.createTempDirectory("vnpu-exporter-bench-");
    ChipPoller chips =
        new ChipPoller(
            ExporterFixtures.node(
                client, directory, NODE, CHIPS, NodeRegistration.MAX_SHARES_PER_CHIP),
            client,
            NODE);
    chips.poll();
    List<PodAllocations.PodVnpus> pods = new ArrayList<>();
    for (int chip = 0; chip < CHIPS; chip++) {
      String die = ExporterFixtures.die(NODE, chip);
      for (int c = 0; c < CONTAINERS; c++) {
        String uid = "uid-" + chip + "-" + c;
        pods.add(
            ExporterFixtures.pod(
                uid,
                "ns",
                "pod-" + chip + "-" + c,
                NODE,
                "main",
                ExporterFixtures.soft(chip, die, 1, 1024)));
        new BooksFixture(die)
            .totals(1L << 20, 1_000_000L * c, c, 0)
            .process(0, 1000 + c, 1L << 20)
            .write(ShimContract.hostBooks(directory.resolve("state"), uid, "main", die));
      }
    }
    collector =
        new VnpuCollector(NODE, chips, () -> pods, directory.resolve("state"), System::nanoTime);
  }

  @TearDown(Level.Trial)
  public void stop() {
    api.close();
  }

  @Benchmark
  public String scrape() {
    return ExporterFixtures.text(collector.collect());
  }
}
