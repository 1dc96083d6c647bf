package org.vnpu.exporter;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.Priority;
import org.vnpu.api.ShimContract;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.api.region.ContainerBooks;
import org.vnpu.driver.ChipUsage;
import org.vnpu.driver.DriverReadings;

/**
 * Builds every vNPU metric at scrape time from the latest chip readings, the pods' allocations and
 * the containers' books (read now; books that cannot be read count an error and leave the
 * container's usage at zero). Container series exist exactly while an allocation does. The metric
 * names and labels are listed in docs/metrics.md.
 */
public final class VnpuCollector implements MultiCollector {

  private static final Logger LOG = LoggerFactory.getLogger(VnpuCollector.class);
  private static final double MIB = 1024.0 * 1024.0;
  private static final String NONE = "none";

  private final String node;
  private final ChipPoller chips;
  private final Supplier<Collection<PodAllocations.PodVnpus>> pods;
  private final Path stateDirectory;
  private final LongSupplier nanoTime;
  private final Map<String, long[]> lastBusy = new HashMap<>();
  private final Map<String, Mapping> mappings = new HashMap<>();
  private long booksErrors;
  private double lastCollectSeconds;

  /**
   * @param stateDirectory the device plugin's state directory, where the containers' books are
   * @param nanoTime the clock measured shares are computed with
   */
  public VnpuCollector(
      String node,
      ChipPoller chips,
      Supplier<Collection<PodAllocations.PodVnpus>> pods,
      Path stateDirectory,
      LongSupplier nanoTime) {
    this.node = node;
    this.chips = chips;
    this.pods = pods;
    this.stateDirectory = stateDirectory;
    this.nanoTime = nanoTime;
  }

  @Override
  public synchronized MetricSnapshots collect() {
    long started = System.nanoTime();
    MetricFamilies f = new MetricFamilies();
    List<DriverReadings.Reading> readings = chips.readings();
    Optional<NodeRegistration> registration = chips.registration();
    String splitMode = registration.map(r -> r.splitMode().wireName()).orElse("unknown");
    Collection<PodAllocations.PodVnpus> allocated = pods.get();
    long now = nanoTime.getAsLong();
    Set<String> seen = new HashSet<>();
    int vnpusOnNode = 0;
    for (DriverReadings.Reading reading : readings) {
      vnpusOnNode += chip(f, reading, splitMode, allocated, now, seen);
    }
    lastBusy.keySet().retainAll(seen);
    mappings.keySet().retainAll(seen);
    node(f, readings.size(), registration, splitMode, vnpusOnNode);
    lastCollectSeconds = (System.nanoTime() - started) / 1e9;
    return f.build();
  }

  /** The chip's series and its containers'; returns how many vNPUs it holds. */
  private int chip(
      MetricFamilies f,
      DriverReadings.Reading reading,
      String splitMode,
      Collection<PodAllocations.PodVnpus> allocated,
      long now,
      Set<String> seen) {
    RegisteredChip chip = reading.chip();
    Labels labels =
        Labels.of(
            "node",
            node,
            "chip",
            Integer.toString(chip.index()),
            "die_id",
            chip.dieId(),
            "model",
            chip.chipType());
    f.gauge(
        "vnpu_chip_info",
        "Chip identity and split mode; always 1.",
        labels.add("split_mode", splitMode),
        1);
    f.gauge(
        "vnpu_chip_healthy",
        "1 when the driver reports the chip healthy.",
        labels,
        chip.healthy() ? 1 : 0);
    f.gauge(
        "vnpu_chip_memory_total_bytes",
        "Device memory of the chip.",
        labels,
        chip.memoryMiB() * MIB);
    driverSeries(f, labels, reading.usage());
    return vnpuSeries(f, labels, chip, allocated, now, seen);
  }

  /** The series of the chip's vNPUs and their containers; returns how many there are. */
  private int vnpuSeries(
      MetricFamilies f,
      Labels labels,
      RegisteredChip chip,
      Collection<PodAllocations.PodVnpus> allocated,
      long now,
      Set<String> seen) {
    int vnpus = 0;
    Set<String> podsOnChip = new HashSet<>();
    Map<Priority, Double> shareByPriority = new EnumMap<>(Priority.class);
    for (Priority priority : Priority.values()) {
      shareByPriority.put(priority, 0.0);
    }
    for (PodAllocations.PodVnpus pod : allocated) {
      for (ContainerAllocation container : pod.allocation().containers()) {
        for (VnpuAssignment vnpu : container.vnpus()) {
          if (vnpu.dieId().equals(chip.dieId())) {
            vnpus++;
            podsOnChip.add(pod.uid());
            double share = container(f, pod, container, vnpu, chip, now, seen);
            shareByPriority.merge(pod.allocation().priority(), share, Double::sum);
          }
        }
      }
    }
    shareByPriority.forEach(
        (priority, share) ->
            f.gauge(
                "vnpu_chip_aicore_share_ratio",
                "AI Core time the chip's containers of this priority held since the previous"
                    + " scrape, 0..1 (from the shims' books).",
                labels.add("priority", priority.wireName()),
                Math.min(1.0, share)));
    f.gauge("vnpu_chip_vnpus", "vNPUs allocated on the chip.", labels, vnpus);
    f.gauge("vnpu_chip_pods", "Pods with a vNPU on the chip.", labels, podsOnChip.size());
    return vnpus;
  }

  /** What the driver measured of the chip, when it answered. */
  private static void driverSeries(MetricFamilies f, Labels labels, ChipUsage usage) {
    if (usage != null) {
      f.gauge(
          "vnpu_chip_aicore_utilization_ratio",
          "AI Core utilisation the driver measured, 0..1.",
          labels,
          usage.aiCorePercent() / 100.0);
      f.gauge(
          "vnpu_chip_memory_used_bytes",
          "Device memory in use on the chip.",
          labels,
          usage.memoryUsedMiB() * MIB);
      if (usage.temperatureCelsius() != null) {
        f.gauge(
            "vnpu_chip_temperature_celsius",
            "Chip temperature.",
            labels,
            usage.temperatureCelsius());
      }
      if (usage.powerWatts() != null) {
        f.gauge(
            "vnpu_chip_power_watts", "Power draw of the chip's card.", labels, usage.powerWatts());
      }
    }
  }

  /** The node's series and the exporter's own. */
  private void node(
      MetricFamilies f,
      int chipCount,
      Optional<NodeRegistration> registration,
      String splitMode,
      int vnpusOnNode) {
    Labels nodeLabels = Labels.of("node", node);
    f.gauge(
        "vnpu_node_info",
        "The node's split mode; always 1.",
        nodeLabels.add("split_mode", splitMode),
        1);
    f.gauge("vnpu_node_chips", "Chips the driver reports.", nodeLabels, chipCount);
    registration.ifPresent(
        r ->
            f.gauge(
                "vnpu_node_share_slots",
                "vNPUs the node's chips may hold at most (chips × max shares per chip).",
                nodeLabels,
                (double) r.chips().size() * r.maxSharesPerChip()));
    f.gauge("vnpu_node_share_slots_used", "vNPUs allocated on the node.", nodeLabels, vnpusOnNode);
    f.counter(
        "vnpu_exporter_driver_errors",
        "Driver calls that failed.",
        nodeLabels,
        chips.driverErrors());
    f.counter(
        "vnpu_exporter_books_errors",
        "Reads of containers' books that failed (corrupt, not a file, another layout version).",
        nodeLabels,
        booksErrors);
    f.gauge(
        "vnpu_exporter_collect_duration_seconds",
        "How long the previous scrape took to collect.",
        nodeLabels,
        lastCollectSeconds);
  }

  /** The container's series; returns its AI Core share measured since the previous scrape. */
  private double container(
      MetricFamilies f,
      PodAllocations.PodVnpus pod,
      ContainerAllocation container,
      VnpuAssignment vnpu,
      RegisteredChip chip,
      long now,
      Set<String> seen) {
    Labels labels =
        Labels.of(
            "node", node,
            "namespace", pod.namespace(),
            "pod", pod.name(),
            "container", container.name(),
            "chip", Integer.toString(chip.index()),
            "die_id", chip.dieId(),
            "mode", vnpu.wholeCard() ? "whole-card" : vnpu.mode().wireName(),
            "policy", vnpu.policy() == null ? NONE : vnpu.policy().wireName(),
            "template", vnpu.template() == null ? NONE : vnpu.template(),
            "priority", pod.allocation().priority().wireName());
    String key = pod.filesKey() + "/" + container.name() + "/" + chip.dieId();
    seen.add(key);
    Optional<ContainerBooks> books = books(key, pod.filesKey(), container.name(), chip.dieId());
    long busy = books.map(ContainerBooks::busyNanos).orElse(0L);
    long[] previous = lastBusy.put(key, new long[] {busy, now});
    double share =
        previous == null || now <= previous[1] || busy < previous[0]
            ? 0
            : (double) (busy - previous[0]) / (now - previous[1]);
    containerSeries(f, labels, vnpu, books, busy, share);
    return Math.min(1.0, share);
  }

  /** The container's series on one chip, from its allocation and its books. */
  private static void containerSeries(
      MetricFamilies f,
      Labels labels,
      VnpuAssignment vnpu,
      Optional<ContainerBooks> books,
      long busy,
      double share) {
    long processes = books.map(b -> b.processes().size()).orElse(0);
    f.gauge(
        "vnpu_container_memory_limit_bytes",
        "Device-memory quota of the container on the chip.",
        labels,
        vnpu.memoryMiB() * MIB);
    f.gauge(
        "vnpu_container_memory_used_bytes",
        "Device memory the container's processes hold (from the shim's books).",
        labels,
        books.map(ContainerBooks::memoryUsedBytes).orElse(0L));
    f.gauge(
        "vnpu_container_aicore_quota_ratio",
        "AI Core share granted, 0..1 (0: best-effort).",
        labels,
        vnpu.cores() / 100.0);
    f.gauge(
        "vnpu_container_aicore_share_ratio",
        "AI Core share measured since the previous scrape, 0..1 (time the container held the chip).",
        labels,
        Math.min(1.0, share));
    f.counter(
        "vnpu_container_aicore_busy_seconds",
        "Time the container held the chip's AI Cores.",
        labels,
        busy / 1e9);
    f.gauge(
        "vnpu_container_processes",
        "Processes of the container using the chip.",
        labels,
        processes);
    f.counter(
        "vnpu_container_preemptions_suffered",
        "Turns on the chip an offline container gave up because online work wanted it.",
        labels,
        books.map(ContainerBooks::preemptionsSuffered).orElse(0L));
    f.counter(
        "vnpu_container_preemptions_caused",
        "Turns on the chip an online container took from offline work.",
        labels,
        books.map(ContainerBooks::preemptionsCaused).orElse(0L));
    f.counter(
        "vnpu_container_launch_wait_seconds",
        "Time the container's kernel launches waited for the chip's AI Cores.",
        labels,
        books.map(ContainerBooks::launchWaitNanos).orElse(0L) / 1e9);
  }

  /**
   * A container's books of chip {@code dieId}, parsed from a mapping made once and kept while the
   * container's allocation lasts: the shim creates the file once and never replaces it, and its
   * pod's directory goes only when the pod does. Books not there yet are looked for at each scrape.
   */
  private Optional<ContainerBooks> books(
      String key, String filesKey, String container, String dieId) {
    Mapping mapping = mappings.get(key);
    try {
      if (mapping == null) {
        Path file = ShimContract.hostBooks(stateDirectory, filesKey, container, dieId);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
          return Optional.empty();
        }
        mapping = new Mapping(file.toString(), ContainerBooks.map(file));
        mappings.put(key, mapping);
      }
      return Optional.of(ContainerBooks.parse(mapping.source(), mapping.bytes()));
    } catch (IOException | IllegalArgumentException e) {
      booksErrors++;
      mappings.remove(key);
      LOG.warn(
          "cannot read the books of {}/{} on chip {}: {}",
          filesKey,
          container,
          dieId,
          e.getMessage());
      return Optional.empty();
    }
  }

  private record Mapping(String source, ByteBuffer bytes) {}
}
