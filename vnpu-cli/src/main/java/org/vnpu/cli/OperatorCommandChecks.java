package org.vnpu.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.vnpu.cluster.RealCluster;
import org.vnpu.cluster.VnpuRelease;
import org.vnpu.sandbox.SandboxNode;
import org.vnpu.sandbox.Scenario;
import org.vnpu.sandbox.Scenario.Check;
import picocli.CommandLine;

/**
 * {@code vnpu get}, {@code vnpu why} and {@code vnpu doctor} run against the real cluster after the
 * scenario, as an operator runs them: each must answer, and what it says must agree with what the
 * real API server holds (the node each pod is bound to, the reason a pending pod waits).
 */
final class OperatorCommandChecks {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Duration QUIET = Duration.ofSeconds(5);
  private static final Duration SETTLE = Duration.ofSeconds(60);

  private final RealCluster cluster;
  private final Consumer<String> progress;
  private final List<Check> checks = new ArrayList<>();

  OperatorCommandChecks(RealCluster cluster, Consumer<String> progress) {
    this.cluster = cluster;
    this.progress = progress;
  }

  /** What one command printed and its exit code. */
  private record Run(List<String> args, int exitCode, String out, String err) {
    JsonNode json() {
      try {
        return JSON.readTree(out);
      } catch (IOException e) {
        throw new UncheckedIOException("vnpu " + String.join(" ", args) + " printed no JSON", e);
      }
    }

    String failure() {
      return "vnpu " + String.join(" ", args) + " exited " + exitCode + ": " + err.strip();
    }
  }

  List<Check> run() throws IOException, InterruptedException {
    progress.accept("[operator] vnpu get, vnpu why and vnpu doctor against the real cluster");
    settle();
    String kubeconfig = cluster.plane().adminKubeconfig().toString();
    List<String> connection =
        List.of(
            "--kubeconfig",
            kubeconfig,
            "--keys-namespace",
            VnpuRelease.NAMESPACE,
            "--verifying-keys",
            VnpuRelease.NAME + "-verifying-keys");
    List<JsonNode> rows = getPods(connection);
    getNodes(connection, rows);
    whyPlaced(connection, rows);
    whyPending(connection);
    doctor();
    return List.copyOf(checks);
  }

  /**
   * Waits until no pod of the scenario's namespace changed its node for {@link #QUIET} (at most
   * {@link #SETTLE}): a scheduler may still be placing pods the last steps left pending, and the
   * commands are compared with the API server at one moment.
   */
  private void settle() throws InterruptedException {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    Map<String, String> last = bindings();
    long quietSince = System.nanoTime();
    while (System.nanoTime() - quietSince < QUIET.toNanos() && System.nanoTime() < deadline) {
      Thread.sleep(500);
      Map<String, String> now = bindings();
      if (!now.equals(last)) {
        last = now;
        quietSince = System.nanoTime();
      }
    }
  }

  private Map<String, String> bindings() {
    Map<String, String> bound = new TreeMap<>();
    for (Pod pod : cluster.client().pods().inNamespace(Scenario.NAMESPACE).list().getItems()) {
      bound.put(pod.getMetadata().getName(), String.valueOf(pod.getSpec().getNodeName()));
    }
    return bound;
  }

  /** Every pod {@code vnpu get pods} shows is bound, in the API server, to the node it names. */
  private List<JsonNode> getPods(List<String> connection) {
    Run run = vnpu(connection, "get", "pods", "-A", "-o", "json");
    if (run.exitCode() != 0) {
      checks.add(new Check("operator: vnpu get pods answers", false, run.failure()));
      return List.of();
    }
    List<JsonNode> rows = new ArrayList<>();
    run.json().forEach(rows::add);
    List<String> wrong = new ArrayList<>();
    for (JsonNode row : rows) {
      Pod pod =
          cluster
              .client()
              .pods()
              .inNamespace(row.path("namespace").asText())
              .withName(row.path("pod").asText())
              .get();
      String bound = pod == null ? "(gone)" : pod.getSpec().getNodeName();
      if (!row.path("node").asText().equals(bound)) {
        wrong.add(
            row.path("pod").asText() + " on " + row.path("node").asText() + ", bound " + bound);
      }
    }
    checks.add(
        new Check(
            "operator: vnpu get pods shows each pod on the node the API server bound it to",
            !rows.isEmpty() && wrong.isEmpty(),
            rows.size() + " pods" + (wrong.isEmpty() ? "" : "; differ: " + wrong)));
    return rows;
  }

  /** {@code vnpu get nodes} counts, on every NPU node, the vNPUs that its pods hold. */
  private void getNodes(List<String> connection, List<JsonNode> pods) {
    Run run = vnpu(connection, "get", "nodes", "-o", "json");
    if (run.exitCode() != 0) {
      checks.add(new Check("operator: vnpu get nodes answers", false, run.failure()));
      return;
    }
    List<String> wrong = new ArrayList<>();
    int nodes = 0;
    for (JsonNode row : run.json()) {
      nodes++;
      String node = row.path("node").asText();
      int held = 0;
      for (JsonNode pod : pods) {
        if (node.equals(pod.path("node").asText())) {
          held += pod.path("chips").size();
        }
      }
      if (row.path("vnpus").asInt() != held) {
        wrong.add(node + " counts " + row.path("vnpus").asInt() + ", its pods hold " + held);
      }
    }
    int expected = cluster.nodes().size();
    checks.add(
        new Check(
            "operator: vnpu get nodes shows every NPU node with the vNPUs its pods hold",
            nodes == expected && wrong.isEmpty(),
            nodes + " of " + expected + " nodes" + (wrong.isEmpty() ? "" : "; differ: " + wrong)));
  }

  /** {@code vnpu why} of a placed pod names the node it is bound to. */
  private void whyPlaced(List<String> connection, List<JsonNode> pods) {
    if (pods.isEmpty()) {
      checks.add(new Check("operator: vnpu why of a placed pod", false, "no pod has vNPUs"));
      return;
    }
    JsonNode pod = pods.get(0);
    String id = pod.path("namespace").asText() + "/" + pod.path("pod").asText();
    Run run = vnpu(connection, "why", id, "-o", "json");
    String state = run.exitCode() == 0 ? run.json().path("state").asText() : "";
    String node = run.exitCode() == 0 ? run.json().path("node").asText() : "";
    checks.add(
        new Check(
            "operator: vnpu why of a placed pod says where it runs",
            "placed".equals(state) && node.equals(pod.path("node").asText()),
            run.exitCode() == 0 ? id + ": " + state + " on " + node : run.failure()));
  }

  /**
   * {@code vnpu why} of every vNPU pod the scheduler left pending in the scenario's namespace says
   * why, node by node.
   */
  private void whyPending(List<String> connection) {
    KubernetesClient client = cluster.client();
    List<String> pending =
        client.pods().inNamespace(Scenario.NAMESPACE).list().getItems().stream()
            .filter(pod -> pod.getSpec().getNodeName() == null)
            .filter(pod -> cluster.unschedulable(pod).isPresent())
            .map(pod -> Scenario.NAMESPACE + "/" + pod.getMetadata().getName())
            .toList();
    List<String> answers = new ArrayList<>();
    boolean explained = !pending.isEmpty();
    for (String id : pending) {
      Run run = vnpu(connection, "why", id, "-o", "json");
      if (run.exitCode() != 0) {
        answers.add(run.failure());
        explained = false;
        continue;
      }
      JsonNode answer = run.json();
      String state = answer.path("state").asText();
      // A pending pod gets every node's answer; one that breaks the contract gets the rule.
      boolean withReason =
          !answer.path("unschedulable").asText().isBlank()
              && ("invalid".equals(state)
                  || "pending".equals(state) && !answer.path("nodes").isEmpty());
      explained &= withReason;
      answers.add(id + " " + state + ": " + answer.path("unschedulable").asText());
    }
    checks.add(
        new Check(
            "operator: vnpu why explains every pod the scheduler left pending",
            explained,
            pending.isEmpty() ? "no pod is pending as unschedulable" : String.join("; ", answers)));
  }

  /** {@code vnpu doctor} with each node agent's options finds the node set up. */
  private void doctor() {
    List<String> failed = new ArrayList<>();
    for (SandboxNode node : cluster.nodes()) {
      String arguments = "@" + cluster.nodeDirectory(node.name()).resolve("doctor.args");
      Run run = vnpu(List.of(), "doctor", arguments);
      if (run.exitCode() != 0) {
        failed.add(node.name() + ": " + run.out().strip() + run.err().strip());
      }
    }
    checks.add(
        new Check(
            "operator: vnpu doctor finds every node set up, reading the real API server",
            failed.isEmpty(),
            failed.isEmpty() ? cluster.nodes().size() + " nodes pass" : String.join("; ", failed)));
  }

  private static Run vnpu(List<String> connection, String... command) {
    List<String> args = new ArrayList<>(List.of(command));
    args.addAll(connection);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine line = VnpuCommand.commandLine();
    line.setOut(new PrintWriter(out, true));
    line.setErr(new PrintWriter(err, true));
    int code = line.execute(args.toArray(String[]::new));
    return new Run(List.copyOf(args), code, out.toString(), err.toString());
  }
}
