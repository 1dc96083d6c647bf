package org.vnpu.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Comparator;
import org.vnpu.sandbox.BurstScenario;
import org.vnpu.sandbox.DraNode;
import org.vnpu.sandbox.NodeSpec;
import org.vnpu.sandbox.Sandbox;
import org.vnpu.sandbox.SandboxNode;
import org.vnpu.sandbox.Scenario;

/** What {@code vnpu demo} prints: the sandbox, the scenario's report, the burst's figures. */
final class DemoText {

  private DemoText() {}

  /** The burst's report as a table of figures. */
  static String burst(BurstScenario.Report report) {
    TextTable table = new TextTable("figure", "value");
    table.row("pods", report.pods());
    table.row("bound and admitted", report.bound());
    table.row("seconds", String.format("%.1f", report.seconds()));
    table.row("pods per second", String.format("%.1f", report.podsPerSecond()));
    table.row("node-lock refusals", report.lockRefusals());
    table.row("chips used", report.chipsUsed());
    table.row(
        "chips used one at a time",
        report.chipsUsedSequential() == null ? "not run" : report.chipsUsedSequential());
    table.row("mismatched hand-outs", report.mismatchedHandouts());
    table.row("seconds to settle hand-outs", String.format("%.1f", report.settleSeconds()));
    table.row("seconds placing (schedulers)", String.format("%.1f", report.time().placing()));
    table.row("seconds binding (schedulers)", String.format("%.1f", report.time().binding()));
    report
        .time()
        .extender()
        .forEach(
            (verb, seconds) ->
                table.row("seconds in extender " + verb, String.format("%.1f", seconds)));
    table.row(
        "seconds in Allocate (device plugins)", String.format("%.1f", report.time().allocate()));
    return table.render("");
  }

  /** Where the sandbox's API server, scheduler, logs and nodes are. */
  static void sandbox(PrintWriter out, Sandbox sandbox, Path log) {
    out.println();
    out.println("  API server   " + sandbox.apiServerUrl());
    out.println(
        "  kubeconfig   " + sandbox.kubeconfig() + "   (kubectl --kubeconfig FILE get pods)");
    out.println(
        "  scheduler    "
            + (sandbox.options().driver() == Sandbox.Driver.VOLCANO
                ? sandbox.schedulerUrl() + "   (driven as Volcano would; /metrics)"
                : sandbox.kubeSchedulerUrl()
                    + "/kube   (driven as kube-scheduler would, over mutual TLS; /metrics at "
                    + sandbox.schedulerUrl()
                    + ")"));
    out.println("  components   " + log);
    out.println();
    TextTable nodes = new TextTable("node", "machine", "mode", "chips", "metrics");
    for (SandboxNode node : sandbox.nodes()) {
      NodeSpec spec = node.spec();
      nodes.row(
          spec.name(),
          spec.description(),
          spec.mode().wireName(),
          spec.chips().size(),
          node.metricsUrl());
    }
    for (DraNode node : sandbox.draNodes()) {
      NodeSpec spec = node.spec();
      nodes.row(spec.name(), spec.description(), "DRA", spec.chips().size(), "-");
    }
    out.print(nodes.render("  "));
    out.println();
    out.flush();
  }

  /** The scenario's report: placements, pods that do not fit, the comparison, the checks. */
  static void report(PrintWriter out, Scenario.Report report) {
    out.println();
    out.println("Placement (one line per vNPU)");
    TextTable placements = new TextTable("node", "chip", "type", "pod", "slice");
    report.placements().stream()
        .sorted(
            Comparator.comparing(Scenario.Row::node)
                .thenComparingInt(Scenario.Row::chip)
                .thenComparing(Scenario.Row::pod))
        .forEach(
            row -> placements.row(row.node(), row.chip(), row.chipType(), row.pod(), row.slice()));
    out.print(placements.render("  "));
    out.println();
    out.println("Pods that do not fit");
    if (report.unfit().isEmpty()) {
      out.println("  none");
    }
    report.unfit().forEach(unfit -> out.println("  " + unfit.pod() + ": " + unfit.reason()));
    out.println();
    out.println("Compared with whole-card allocation");
    report.comparison().forEach(line -> out.println("  " + line));
    out.println();
    out.println("Checks");
    for (Scenario.Check check : report.checks()) {
      out.println("  " + (check.passed() ? "ok    " : "FAILED") + " " + check.name());
      if (!check.passed()) {
        out.println("         " + check.detail());
      }
    }
    out.println();
    out.println(report.passed() ? "Every expectation held." : "Some expectations failed (above).");
    out.flush();
  }
}
