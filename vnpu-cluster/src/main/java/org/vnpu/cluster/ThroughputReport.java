package org.vnpu.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a throughput benchmark measured, as the tables docs/benchmarks.md shows: pods per second
 * against the row's anchor, the extender's verbs, its API requests per pod, and each process's CPU.
 *
 * @param nodes nodes in the cluster
 * @param pods pods per row
 * @param warmUp pods each row placed first, unmeasured
 * @param volcanoShareOfNodes Volcano's {@code --percentage-nodes-to-find}; 0: Volcano's own
 * @param kubeSchedulerQps the client limit of the kube-scheduler of rows a; 0: its default (50)
 * @param node what each node holds
 * @param versions the upstream components' versions
 * @param rows each row's figures, in the order they ran
 * @param standIns how the stand-ins of the nodes' kubelets and device plugins kept up
 */
public record ThroughputReport(
    int nodes,
    int pods,
    int warmUp,
    int volcanoShareOfNodes,
    int kubeSchedulerQps,
    String node,
    String versions,
    List<RowFigures> rows,
    StandInFigures standIns) {

  /** The verbs the tables show, in the order a pod meets them. */
  private static final List<String> VERBS =
      List.of("filter", "prioritize", "bind", "predicate", "allocateFunc");

  public ThroughputReport {
    rows = List.copyOf(rows);
  }

  /** The rows that did not bind every pod, each with its problem. */
  public List<String> problems() {
    return rows.stream()
        .filter(RowFigures::broken)
        .map(row -> row.row().id() + ": " + row.problem())
        .toList();
  }

  /** One line for a row just run. */
  static String summary(RowFigures row) {
    return String.format(
        Locale.ROOT,
        "  %s: %d of %d bound in %.1f s, %.1f pods/s%s",
        row.row().id(),
        row.bound(),
        row.pods(),
        row.seconds(),
        row.podsPerSecond(),
        row.broken() ? "; BROKEN: " + row.problem() : "");
  }

  /** The three tables, in Markdown. */
  public String markdown() {
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            Locale.ROOT,
            "%d nodes of %s, %d pods per row%s%s%s; %s.",
            nodes,
            node,
            pods,
            warmUp > 0 ? ", each row after " + warmUp + " placed unmeasured" : "",
            volcanoShareOfNodes > 0
                ? ", Volcano finding " + volcanoShareOfNodes + " % of the nodes per task"
                : "",
            kubeSchedulerQps > 0
                ? ", kube-scheduler's client (rows a) at " + kubeSchedulerQps + " requests/s"
                : "",
            versions));
    lines.add(
        String.format(
            Locale.ROOT,
            "The nodes' stand-ins: %d writes failed; the longest a Lease went unrenewed, %d s"
                + " (nodes are marked unreachable after %d s); the longest a bound pod's lock"
                + " entry waited for its release, %.1f s.",
            standIns.writeFailures(),
            standIns.longestLeaseGap().toSeconds(),
            BenchNodes.GRACE_PERIOD.toSeconds(),
            standIns.longestRelease().toMillis() / 1000.0));
    lines.add("");
    lines.addAll(throughput());
    lines.add("");
    lines.addAll(verbs());
    lines.add("");
    lines.addAll(cpu());
    return String.join("\n", lines) + "\n";
  }

  private List<String> throughput() {
    List<String> lines = new ArrayList<>();
    lines.add(
        "| row | scheduler and pods | bound | first create → last binding | pods/s | × anchor"
            + " | extender writes / pod (+ events) | extender requests / pod | scheduler requests / pod"
            + " | lock refusals | chips used (one at a time) |");
    lines.add("|---|---|---|---|---|---|---|---|---|---|---|");
    for (RowFigures row : rows) {
      lines.add(
          String.format(
              Locale.ROOT,
              "| %s | %s | %d / %d | %.1f s | %.1f | %s | %s | %s | %.1f | %s | %s |",
              row.row().id(),
              row.row().description(),
              row.bound(),
              row.pods(),
              row.seconds(),
              row.podsPerSecond(),
              ratio(row),
              row.row().extended()
                  ? String.format(
                      Locale.ROOT, "%.2f (+ %.2f)", row.extenderWritesPerPod(), row.eventsPerPod())
                  : "–",
              row.row().extended()
                  ? String.format(Locale.ROOT, "%.2f", row.extenderRequestsPerPod())
                  : "–",
              row.schedulerRequestsPerPod(),
              row.row().extended() ? Long.toString(row.lockRefusals()) : "–",
              row.chipsSequential() == null
                  ? Integer.toString(row.chipsUsed())
                  : row.chipsUsed() + " (" + row.chipsSequential() + ")"));
    }
    return lines;
  }

  private String ratio(RowFigures row) {
    if (!row.row().extended()) {
      return "anchor";
    }
    return rows.stream()
        .filter(anchor -> anchor.row().id().equals(row.row().anchor()))
        .findFirst()
        .filter(anchor -> anchor.podsPerSecond() > 0)
        .map(
            anchor ->
                String.format(Locale.ROOT, "%.2f", row.podsPerSecond() / anchor.podsPerSecond()))
        .orElse("–");
  }

  private List<String> verbs() {
    List<String> lines = new ArrayList<>();
    lines.add(
        "| row | "
            + String.join(" | ", VERBS.stream().map(v -> v + " calls, p50 / p99 ms").toList())
            + " | extender's requests in the row |");
    lines.add("|---|" + "---|".repeat(VERBS.size() + 1));
    for (RowFigures row : rows) {
      if (!row.row().extended()) {
        continue;
      }
      List<String> cells = new ArrayList<>();
      for (String verb : VERBS) {
        RowFigures.Verb figures = row.verbs().get(verb);
        cells.add(
            figures == null
                ? "–"
                : String.format(
                    Locale.ROOT, "%d, %.1f / %.1f", figures.calls(), figures.p50(), figures.p99()));
      }
      lines.add(
          "| "
              + row.row().id()
              + " | "
              + String.join(" | ", cells)
              + " | "
              + requests(row.extenderRequests())
              + " |");
    }
    return lines;
  }

  private static String requests(Map<String, Integer> requests) {
    return requests.entrySet().stream()
        .map(e -> e.getKey() + " " + e.getValue())
        .collect(Collectors.joining(", "));
  }

  private List<String> cpu() {
    List<String> lines = new ArrayList<>();
    if (rows.isEmpty()) {
      return lines;
    }
    List<String> processes = new ArrayList<>(rows.get(0).cpuSeconds().keySet());
    lines.add("| row | CPU s: " + String.join(" | ", processes) + " |");
    lines.add("|---|" + "---|".repeat(processes.size()));
    for (RowFigures row : rows) {
      lines.add(
          "| "
              + row.row().id()
              + " | "
              + processes.stream()
                  .map(
                      p ->
                          String.format(Locale.ROOT, "%.1f", row.cpuSeconds().getOrDefault(p, 0.0)))
                  .collect(Collectors.joining(" | "))
              + " |");
    }
    return lines;
  }
}
