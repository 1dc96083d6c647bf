package org.vnpu.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.vnpu.core.engine.RebalancePlanner;
import org.vnpu.scheduler.RebalanceController;
import org.vnpu.scheduler.RebalanceLedger;
import org.vnpu.scheduler.RebalanceSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vnpu rebalance --dry-run}: the plan the rebalancer would carry out now. */
@Command(
    name = "rebalance",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Print the moves the rebalancer would make now: for each vNPU pod that fits no node, the"
          + " fewest running pods to move so that it fits, and the offline pods to move off hot"
          + " nodes. It reads the cluster and rebuilds the scheduler's ledger as the scheduler"
          + " does, then changes nothing: the scheduler's leader carries plans out"
          + " (--rebalancer-mode execute; docs/rebalancing.md). A pod counts as pending at once"
          + " and a node as hot at once."
    })
final class RebalanceCommand implements Callable<Integer> {

  @Option(
      names = "--dry-run",
      required = true,
      description = "Plan only (required: this command never evicts).")
  boolean dryRun;

  @Mixin ClusterOptions cluster;

  @Mixin CatalogOption catalog;

  @Mixin RebalancerOptions rebalancer;

  @Mixin OutputOption output;

  @Spec CommandSpec spec;

  /** One planned move, as printed. */
  record PlannedMove(String pod, String from, String to) {}

  /** What the rebalancer would do for one pending pod, or for hot nodes. */
  record Row(String pod, String outcome, String node, List<PlannedMove> moves) {}

  @Override
  public Integer call() {
    RebalanceSettings settings = rebalancer.settings();
    try (KubernetesClient client = cluster.client()) {
      RebalanceLedger plans = cluster.reader(client, catalog.load()).rebalancePreview();
      List<Row> rows = new ArrayList<>();
      for (RebalanceController.Decision decision :
          RebalanceController.preview(client, plans, settings, Clock.systemUTC()).pass()) {
        rows.add(row(decision));
      }
      PrintWriter out = spec.commandLine().getOut();
      out.print(output.render(rows, RebalanceCommand::text));
      out.flush();
    }
    return 0;
  }

  private static Row row(RebalanceController.Decision decision) {
    RebalancePlanner.Plan plan = decision.plan();
    List<PlannedMove> moves = new ArrayList<>();
    if (plan != null) {
      for (RebalancePlanner.Move move : plan.moves()) {
        moves.add(
            new PlannedMove(
                move.pod().request().namespace() + "/" + move.pod().request().name(),
                move.pod().node(),
                move.to().node()));
      }
    }
    return new Row(
        decision.pod(),
        decision.outcome(),
        plan == null || plan.pending() == null ? null : plan.pending().node(),
        moves);
  }

  private static String text(List<Row> rows) {
    if (rows.isEmpty()) {
      return "Nothing to rebalance: no vNPU pod is pending and no node runs hot.\n";
    }
    StringBuilder out = new StringBuilder();
    for (Row row : rows) {
      out.append(row.pod()).append(": ");
      if (row.moves().isEmpty()) {
        out.append(outcome(row.outcome())).append('\n');
        continue;
      }
      out.append("move ").append(row.moves().size()).append(" pod(s)");
      out.append(row.node() == null ? "\n" : ", then it runs on node " + row.node() + "\n");
      TextTable table = new TextTable("POD", "FROM", "TO");
      row.moves().forEach(m -> table.row(m.pod(), m.from(), m.to()));
      out.append(table.render("  "));
    }
    return out.toString();
  }

  private static String outcome(String outcome) {
    return switch (outcome) {
      case "no-plan" ->
          "no plan: no few moves of movable pods (offline or low-priority, owned by a"
              + " ReplicaSet, StatefulSet or Job) make room";
      case "rate-limit" -> "not now: this interval's evictions are used up";
      case "invalid-pod" -> "its vNPU request is invalid (see vnpu validate-pod)";
      default -> outcome;
    };
  }
}
