package org.vnpu.exporter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.vnpu.exporter.ExporterFixtures.die;
import static org.vnpu.exporter.ExporterFixtures.pod;
import static org.vnpu.exporter.ExporterFixtures.soft;
import static org.vnpu.exporter.ExporterFixtures.text;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.ShimContract;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.api.region.BooksFixture;
import org.vnpu.testkit.GoldenFile;

@EnableKubernetesMockClient(crud = true)
class VnpuCollectorTest {

  KubernetesClient client;

  @TempDir Path directory;

  private final AtomicLong nanos = new AtomicLong();

  private VnpuCollector collector(
      String node, int chips, Collection<PodAllocations.PodVnpus> pods) {
    ChipPoller poller =
        new ChipPoller(ExporterFixtures.node(client, directory, node, chips, 4), client, node);
    poller.poll();
    return new VnpuCollector(node, poller, () -> pods, directory.resolve("state"), nanos::get);
  }

  private Path books(String node, String podUid, int chip) {
    return ShimContract.hostBooks(directory.resolve("state"), podUid, "main", die(node, chip));
  }

  @Test
  void exposesChipsContainersAndTheNodeAsDocumented() throws IOException {
    String node = "golden";
    List<PodAllocations.PodVnpus> pods =
        List.of(
            pod("uid-a", "serving", "bert", node, "model", soft(0, die(node, 0), 30, 8192)),
            pod(
                "uid-b",
                "batch",
                "resnet",
                node,
                "infer",
                new VnpuAssignment(
                    1,
                    die(node, 1),
                    "910B3",
                    16384,
                    25,
                    SplitMode.HARD,
                    false,
                    null,
                    "vir05_1c_16g")),
            offline(pod("uid-c", "batch", "train", node, "fit", soft(0, die(node, 0), 0, 4096))));
    VnpuCollector collector = collector(node, 2, pods);
    Path books = ShimContract.hostBooks(directory.resolve("state"), "uid-a", "model", die(node, 0));
    Path offlineBooks =
        ShimContract.hostBooks(directory.resolve("state"), "uid-c", "fit", die(node, 0));
    new BooksFixture(die(node, 0))
        .totals(1L << 30, 1_000_000_000L, 120, 0)
        .process(0, 4242, 1L << 30)
        .write(books);
    new BooksFixture(die(node, 0)).write(offlineBooks);
    collector.collect();
    new BooksFixture(die(node, 0))
        .totals(1L << 30, 4_000_000_000L, 480, 0)
        .colocation(0, 7, 35_000_000L)
        .process(0, 4242, 1L << 30)
        .write(books);
    new BooksFixture(die(node, 0))
        .totals(1L << 29, 5_000_000_000L, 900, 1)
        .colocation(7, 0, 0)
        .process(0, 5151, 1L << 29)
        .write(offlineBooks);
    nanos.set(10_000_000_000L);

    String exposition = text(collector.collect());

    GoldenFile.assertMatches("metrics.prom", withoutCollectDuration(exposition));
    promtoolAccepts(exposition);
  }

  private static PodAllocations.PodVnpus offline(PodAllocations.PodVnpus pod) {
    PodAllocation online = pod.allocation();
    return new PodAllocations.PodVnpus(
        pod.uid(),
        pod.namespace(),
        pod.name(),
        new PodAllocation(online.podUid(), online.node(), online.containers(), new OfflineWork(1)),
        pod.filesKey());
  }

  @Test
  void aContainerSeriesExistsAtZeroOnceItsAllocationDoes() {
    String node = "fresh";
    List<PodAllocations.PodVnpus> pods = new ArrayList<>();
    VnpuCollector collector = collector(node, 1, pods);
    assertThat(text(collector.collect())).doesNotContain("vnpu_container_memory_used_bytes{");

    pods.add(pod("uid-new", "default", "new", node, "main", soft(0, die(node, 0), 10, 1024)));
    assertThat(text(collector.collect()))
        .contains(
            "vnpu_container_memory_used_bytes{chip=\"0\",container=\"main\",die_id=\"SIM-fresh-0\","
                + "mode=\"soft\",namespace=\"default\",node=\"fresh\",pod=\"new\",policy=\"elastic\","
                + "priority=\"online\",template=\"none\"} 0.0");

    pods.clear();
    assertThat(text(collector.collect())).doesNotContain("pod=\"new\"");
  }

  @Test
  void corruptedBooksCountAnErrorAndTheScrapeGoesOn() throws IOException {
    String node = "corrupt";
    VnpuCollector collector =
        collector(
            node,
            1,
            List.of(pod("uid-c", "default", "c", node, "main", soft(0, die(node, 0), 10, 1024))));
    Files.createDirectories(books(node, "uid-c", 0).getParent());
    Files.write(books(node, "uid-c", 0), "not books".getBytes(StandardCharsets.UTF_8));

    String exposition = text(collector.collect());

    assertThat(exposition).contains("vnpu_exporter_books_errors_total{node=\"corrupt\"} 1.0");
    assertThat(exposition)
        .contains("vnpu_container_memory_used_bytes{chip=\"0\",container=\"main\"");
    assertThat(exposition).contains("vnpu_chip_healthy{");
  }

  @Test
  void aFifoOrALinkPutWhereTheBooksAreCountsAnErrorInsteadOfHangingTheScrape() throws Exception {
    String node = "hostile";
    VnpuCollector collector =
        collector(
            node,
            2,
            List.of(
                pod("uid-h", "default", "h", node, "main", soft(0, die(node, 0), 10, 1024)),
                pod("uid-i", "default", "i", node, "main", soft(1, die(node, 1), 10, 1024))));
    Path fifo = books(node, "uid-h", 0);
    Path link = books(node, "uid-i", 1);
    Files.createDirectories(fifo.getParent());
    Files.createDirectories(link.getParent());
    // A container writes its books directory: it can put a FIFO or a link where its books go.
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
    Files.createSymbolicLink(link, Path.of("/etc/hostname"));

    String exposition =
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> text(collector.collect()));

    assertThat(exposition).contains("vnpu_exporter_books_errors_total{node=\"hostile\"} 2.0");
  }

  @Test
  void seriesGrowWithAllocationsNotWithProcessesOrTime() {
    String node = "big";
    List<PodAllocations.PodVnpus> pods = new ArrayList<>();
    for (int chip = 0; chip < 16; chip++) {
      for (int c = 0; c < 64; c++) {
        pods.add(
            pod(
                "uid-" + chip + "-" + c,
                "ns",
                "pod-" + chip + "-" + c,
                node,
                "main",
                soft(chip, die(node, chip), 1, 1024)));
      }
    }
    VnpuCollector collector = collector(node, 16, pods);
    collector.collect();
    nanos.addAndGet(1_000_000_000L);

    String exposition = text(collector.collect());

    Matcher series = Pattern.compile("(?m)^(vnpu_container_[a-z_]+)\\{").matcher(exposition);
    List<String> names = new ArrayList<>();
    while (series.find()) {
      names.add(series.group(1));
    }
    Set<String> families = new HashSet<>(names);
    assertThat(families).hasSize(9);
    assertThat(names).hasSize(9 * 16 * 64);
    assertThat(exposition).doesNotContain("pid=");
  }

  /** Checks the exposition with promtool when it is installed (.ci/run installs it). */
  private static void promtoolAccepts(String exposition) throws IOException {
    Path promtool = Path.of("/usr/bin/promtool");
    assumeThat(Files.isExecutable(promtool))
        .as("promtool is not installed; .ci/run installs Debian's prometheus package")
        .isTrue();
    Process process =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    process.getOutputStream().write(exposition.getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    assertThat(output).as("promtool check metrics").isEmpty();
    assertThat(process.exitValue()).isZero();
  }

  private static String withoutCollectDuration(String exposition) {
    return exposition.replaceAll(
        "(?m)^(vnpu_exporter_collect_duration_seconds\\{node=\"[a-z]+\"\\}) .*$", "$1 <measured>");
  }
}
