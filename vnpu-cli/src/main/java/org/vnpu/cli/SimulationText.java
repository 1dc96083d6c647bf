package org.vnpu.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.vnpu.core.inventory.Chip;
import org.vnpu.sim.SimCluster;
import org.vnpu.sim.experiment.RunResult;
import org.vnpu.sim.experiment.SharingComparison;
import org.vnpu.sim.report.Spread;
import org.vnpu.sim.report.Summary;

/** The text reports of {@code vnpu simulate}. */
final class SimulationText {

  private SimulationText() {}

  static String summary(
      Summary summary, SimCluster cluster, List<RunResult> results, List<Long> seeds, double tune) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%d nodes, %d chips; %d arrivals per run (tune %.2f); %d seeds; %d runs%n%n",
            cluster.nodes().size(),
            cluster.chips(),
            results.get(0).samples().size(),
            tune,
            seeds.size(),
            results.size()));
    out.append(table(summary).render(""));
    summary
        .best()
        .ifPresentOrElse(
            best ->
                out.append(
                    String.format(
                        Locale.ROOT,
                        "%nLeast unallocated: %s (%s %%). Unallocated = compute not allocated, in"
                            + " %% of the cluster, when the arrived requests reach 100 %% of it;"
                            + " mean ± sd over seeds.%n",
                        best.policy(),
                        best.unallocated())),
            () ->
                out.append(
                    String.format(
                        Locale.ROOT,
                        "%nThe arrived requests never reach 100 %% of the cluster's compute, so no"
                            + " unallocated figure is given; compare failed pods.%n")));
    return out.toString();
  }

  /** One row per policy; the rebalancer's columns only where it moved pods. */
  private static TextTable table(Summary summary) {
    boolean rebalanced = summary.rows().stream().anyMatch(r -> r.migrations().mean() > 0);
    List<String> headers =
        new ArrayList<>(
            List.of(
                "POLICY", "UNALLOCATED @ ARRIVED=100%", "PAPER", "IN PAPER RANGE", "FAILED PODS"));
    if (rebalanced) {
      headers.addAll(List.of("MIGRATIONS", "PER 100 ARRIVALS", "HOTTEST / COOLEST NODE"));
    }
    headers.add("RUN");
    TextTable table = new TextTable(headers.toArray(String[]::new));
    for (Summary.Row row : summary.rows()) {
      List<String> cells =
          new ArrayList<>(
              List.of(
                  row.policy(),
                  percent(row.unallocated()),
                  row.paper() == null ? "-" : percent(row.paper()),
                  row.withinPaperRange() == null ? "-" : row.withinPaperRange() ? "yes" : "no",
                  String.format(Locale.ROOT, "%.0f", row.failedPods().mean())));
      if (rebalanced) {
        cells.add(String.format(Locale.ROOT, "%.0f", row.migrations().mean()));
        cells.add(String.format(Locale.ROOT, "%.2f", row.migrationsPer100Arrivals().mean()));
        cells.add(
            String.format(
                Locale.ROOT,
                "%.0f %% / %.0f %%",
                row.hottestNode().mean(),
                row.coolestNode().mean()));
      }
      cells.add(String.format(Locale.ROOT, "%.1f s", row.millis().mean() / 1000));
      table.row(cells.toArray());
    }
    return table;
  }

  static String sharing(SharingComparison comparison, SharingComparison.Result result) {
    SimCluster cluster = comparison.cluster();
    StringBuilder out = new StringBuilder();
    out.append("Built-in example: ")
        .append(cluster.nodes().size())
        .append(" nodes, ")
        .append(cluster.chips())
        .append(" chips (")
        .append(chipsByType(cluster))
        .append(")\n")
        .append("Workload: ")
        .append(comparison.describeWorkload())
        .append(" — in random order (seed ")
        .append(comparison.seed())
        .append("), policy fragmentation-aware\n\n");
    TextTable table = new TextTable("", "PODS PLACED", "CHIP COMPUTE RESERVED");
    row(table, "vNPU sharing", result.shared());
    row(table, "whole cards only", result.wholeCards());
    out.append(table.render(""));
    double gain = result.shared().placed() / (double) Math.max(1, result.wholeCards().placed());
    out.append(
        String.format(
            Locale.ROOT,
            "%nSharing places %.1f× as many pods on the same chips. Try your own cluster:"
                + " vnpu simulate --cluster FILE --workload FILE (see vnpu simulate --help).%n",
            gain));
    return out.toString();
  }

  /** E.g. {@code 32× 910B3 on 4 nodes, 32× 310P3 on 4 nodes}. */
  private static String chipsByType(SimCluster cluster) {
    Map<String, Integer> chips = new LinkedHashMap<>();
    Map<String, Integer> nodes = new LinkedHashMap<>();
    for (SimCluster.Node node : cluster.nodes()) {
      Set<String> types = new LinkedHashSet<>();
      for (Chip chip : node.inventory().chips()) {
        chips.merge(chip.model().name(), 1, Integer::sum);
        types.add(chip.model().name());
      }
      types.forEach(type -> nodes.merge(type, 1, Integer::sum));
    }
    return chips.keySet().stream()
        .map(type -> chips.get(type) + "× " + type + " on " + nodes.get(type) + " nodes")
        .collect(Collectors.joining(", "));
  }

  private static void row(TextTable table, String label, SharingComparison.Outcome outcome) {
    table.row(
        label,
        outcome.placed() + " / " + outcome.pods(),
        String.format(Locale.ROOT, "%.0f %%", outcome.allocatedPercent()));
  }

  private static String percent(Spread spread) {
    return Double.isNaN(spread.mean()) ? "n/a (never reached)" : spread + " %";
  }
}
