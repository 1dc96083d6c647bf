package org.vnpu.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.vnpu.deviceplugin.NodeDoctor;
import org.vnpu.deviceplugin.NodeDoctor.Check;
import org.vnpu.deviceplugin.NodeDoctor.Outcome;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vnpu doctor}: is this node set up for vNPU? */
@Command(
    name = "doctor",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Check that this node is set up for vNPU, with the device plugin's options: the node's"
          + " labels, the driver (DCMI or npu-smi answering), device-share mode on soft-mode"
          + " chips, Ascend Docker Runtime, the kubelet's device-plugin directory, the shim (it"
          + " preloads), the state directory's owner and modes, and the verifying keys. Each"
          + " check passes or fails with the fix. The device plugin runs the same checks at start"
          + " and logs them. Changes nothing. Exit code 1 when a check fails.",
      "",
      "On a sandbox node: vnpu doctor @DIR/nodes/NODE/agent.args (the node agent's options). In"
          + " the device plugin's pod: kubectl exec POD -- vnpu doctor with the pod's arguments"
          + " (those only the device plugin has are taken and ignored)."
    })
final class DoctorCommand implements Callable<Integer> {

  @Mixin NodeAgentOptions agent;

  @Mixin NodeSetupOptions setup;

  @Mixin HandoutOptions handout;

  @Mixin VerifyingKeysOption verifyingKeys;

  @Mixin CatalogOption catalog;

  /** Taken and unused, so that doctor runs with the device plugin's arguments as they are. */
  @Option(
      names = {
        "--max-shares-per-chip",
        "--heartbeat-interval",
        "--cleanup-interval",
        "--pod-resources-socket",
        "--reservation-wait"
      },
      hidden = true)
  List<String> devicePluginOnly;

  @Option(
      names = "--no-api",
      description = "Do not ask the API server (the node's labels are not checked).")
  boolean noApi;

  @Mixin ConnectionOptions connection;

  @Mixin OutputOption output;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    String node = agent.node();
    NodeDoctor.Setup checked = setup.doctorSetup(node, handout, verifyingKeys);
    List<Check> checks;
    try (KubernetesClient client = noApi ? null : connection.client()) { // null: not closed
      checks = NodeDoctor.examine(checked, () -> agent.openDriver(catalog.load()), client);
    }
    PrintWriter out = spec.commandLine().getOut();
    Terminal terminal = Terminal.detect();
    out.print(output.render(checks, list -> text(node, list, terminal)));
    out.flush();
    return checks.stream().anyMatch(c -> c.outcome() == Outcome.FAIL) ? 1 : 0;
  }

  static String text(String node, List<Check> checks, Terminal terminal) {
    TextTable table = new TextTable("CHECK", "RESULT", "FOUND");
    StringBuilder fixes = new StringBuilder();
    for (Check check : checks) {
      String outcome = check.outcome().name().toLowerCase(Locale.ROOT);
      table.row(check.name(), terminal.paint(outcome, colour(check.outcome())), check.detail());
      if (check.outcome() != Outcome.PASS) {
        fixes.append("  ").append(check.name()).append(": ").append(check.fix()).append('\n');
      }
    }
    long failed = checks.stream().filter(c -> c.outcome() == Outcome.FAIL).count();
    return "Node "
        + node
        + ":\n"
        + table.render("  ")
        + (fixes.length() == 0 ? "" : "\nTo fix:\n" + fixes)
        + "\n"
        + (failed == 0
            ? "Every check passed" + (fixes.length() == 0 ? "." : " or could not tell (above).")
            : failed + " check(s) failed.")
        + "\n";
  }

  private static Terminal.Colour colour(Outcome outcome) {
    return switch (outcome) {
      case PASS -> Terminal.Colour.GREEN;
      case WARN -> Terminal.Colour.YELLOW;
      case FAIL -> Terminal.Colour.RED;
    };
  }
}
