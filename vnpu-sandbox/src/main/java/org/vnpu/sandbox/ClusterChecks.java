package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.kube.PodPhases;

final class ClusterChecks extends ScenarioStep {

  private static final Duration METRICS_CATCH_UP = Duration.ofSeconds(15);

  private final ChipCatalog catalog = ChipCatalog.builtIn();
  private final List<String> pods;

  /**
   * @param pods every pod the scenario submitted
   */
  ClusterChecks(Context context, List<String> pods) {
    super(context);
    this.pods = List.copyOf(pods);
  }

  @Override
  void run() throws IOException, InterruptedException {
    checkMetrics(pods);
    checkNoOvercommit(pods);
  }

  /** Where every vNPU went, what did not fit and why, and the comparison with whole cards. */
  Scenario.Report report() {
    List<Scenario.Row> rows = new ArrayList<>();
    List<Scenario.Unfit> unfit = new ArrayList<>();
    for (String name : pods) {
      Placed placed = placed(name);
      if (placed == null) {
        unfit.add(new Scenario.Unfit(name, reason(name)));
      } else {
        placed
            .vnpus()
            .forEach(
                vnpu ->
                    rows.add(
                        new Scenario.Row(
                            name, placed.node(), vnpu.chipIndex(), vnpu.chipType(), vnpu.slice())));
      }
    }
    return new Scenario.Report(rows, unfit, compare(pods), List.copyOf(checks));
  }

  /**
   * Every running pod of {@code names} in its node's exporter, and every chip. A pod that started a
   * moment ago (one the burst first found no room for, placed on a later try) reaches the exporter
   * on its next poll, so the scrape is repeated for up to {@link #METRICS_CATCH_UP}.
   */
  private void checkMetrics(List<String> names) throws IOException, InterruptedException {
    Instant deadline = Instant.now().plus(METRICS_CATCH_UP);
    Map<String, String> exposition = new HashMap<>();
    List<String> missing = new ArrayList<>();
    int running;
    do {
      if (!missing.isEmpty()) {
        Thread.sleep(1000);
      }
      for (SandboxNode node : sandbox.nodes()) {
        exposition.put(node.name(), scrape(node.metricsUrl()));
      }
      missing.clear();
      running = 0;
      for (String name : names) {
        Pod pod = get(name);
        if (!"Running".equals(PodPhases.of(pod))) {
          continue;
        }
        running++;
        boolean present =
            MetricSamples.of(
                    exposition.get(pod.getSpec().getNodeName()),
                    "vnpu_container_memory_limit_bytes")
                .stream()
                .anyMatch(sample -> name.equals(sample.labels().get("pod")));
        if (!present) {
          missing.add(name);
        }
      }
    } while (!missing.isEmpty() && Instant.now().isBefore(deadline));
    boolean chips = exposition.values().stream().allMatch(text -> text.contains("vnpu_chip_info{"));
    String detail =
        running
            + " running pods, "
            + (missing.isEmpty() ? "all" : "missing " + missing)
            + " in vnpu_container_memory_limit_bytes";
    progress.accept("      " + detail);
    checks.add(
        new Scenario.Check(
            "every running pod and every chip is in the metrics",
            missing.isEmpty() && chips,
            detail));
  }

  private void checkNoOvercommit(List<String> names) {
    List<Pod> pods = names.stream().map(this::get).filter(pod -> pod != null).toList();
    Overcommit.Finding finding = Overcommit.of(pods, catalog);
    checks.add(
        new Scenario.Check(
            "no chip is promised more AI Core or memory than it has",
            finding.overcommitted().isEmpty(),
            finding.overcommitted().isEmpty()
                ? finding.chipsInUse() + " chips in use"
                : "over-committed: " + finding.overcommitted()));
  }

  /** vNPU sharing against whole cards for the same soft-shared pods. */
  private List<String> compare(List<String> names) {
    int shared = 0;
    int wholeCards = 0;
    Map<String, int[]> chipCores = new TreeMap<>();
    for (String name : names) {
      Placed placed = placed(name);
      if (placed == null) {
        continue;
      }
      for (VnpuAssignment vnpu : placed.vnpus()) {
        if (vnpu.wholeCard()) {
          wholeCards++;
        } else {
          shared++;
          chipCores.computeIfAbsent(placed.node() + "/" + vnpu.chipIndex(), c -> new int[1])[0] +=
              vnpu.cores();
        }
      }
    }
    int chips = sandbox.nodes().stream().mapToInt(node -> node.spec().chips().size()).sum();
    int free = chips - wholeCards;
    double cores =
        chipCores.values().stream().mapToInt(c -> c[0]).sum()
            / (double) Math.max(1, chipCores.size());
    return List.of(
        String.format(
            "vNPU: %d sliced vNPUs share %d chips, %.0f %% of their AI Cores allocated on average",
            shared, chipCores.size(), cores),
        String.format(
            "whole cards: the same %d pods would need %d chips; %d of the cluster's %d are not held by"
                + " whole-card pods, so %d of them would run and %d would wait",
            shared, shared, free, chips, Math.min(shared, free), Math.max(0, shared - free)));
  }
}
