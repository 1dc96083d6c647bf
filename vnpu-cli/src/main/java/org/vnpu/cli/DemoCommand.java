package org.vnpu.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.sandbox.ApiServer;
import org.vnpu.sandbox.BurstScenario;
import org.vnpu.sandbox.DemoCluster;
import org.vnpu.sandbox.Sandbox;
import org.vnpu.sandbox.SandboxOptions;
import org.vnpu.sandbox.Scenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vnpu demo}: the whole system on one machine, and a scenario that shows it working. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run the whole vNPU system on this machine and show it sharing NPUs.",
      "",
      "Starts, in this process: a Kubernetes API server (fabric8's mock, in memory), four"
          + " simulated NPU nodes — two Atlas 800I A2 (8x 910B3, soft slicing), two Atlas 300I"
          + " Duo (4x 310P3, hardware slicing), a mixed 910B3/310P3 server — each with the real"
          + " device plugin on a Unix socket, a kubelet emulator and the real exporter; the real"
          + " scheduler extender over HTTP, called the way Volcano (default) or kube-scheduler"
          + " calls it. Containers are real processes: a small workload program under the real"
          + " libvnpu shim on a fake Ascend runtime.",
      "",
      "Then it submits the example pods of deploy/examples, two pods sharing one chip at 30 %%"
          + " and 60 %%, a pod whose model exceeds its memory quota, and a burst of inference"
          + " pods; prints where every vNPU went, what did not fit and why, and how that compares"
          + " with whole-card allocation; and checks that the scenario's expectations held.",
      "",
      "It prints the kubeconfig of its API server (kubectl --kubeconfig FILE get pods), the"
          + " scheduler's URL and each node's /metrics URL. Without --once it keeps serving"
          + " until Ctrl-C. Needs Linux x86-64 (the shim and fake runtime are built for it).",
      "",
      "--scenario burst measures scheduling instead: --nodes nodes of 8x 910B3, --pods pods"
          + " created at once (--shapes deployment: replicas of one size; mix: five sizes), then"
          + " the same pods one at a time on a fresh sandbox; it prints pods bound, seconds, pods"
          + " per second, node-lock refusals, chips used (and used one at a time) and containers"
          + " handed out another allocation than their annotation names, and exits.",
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every expectation of the scenario held",
      "1:an expectation failed (the report says which)",
      "2:the sandbox could not start"
    })
final class DemoCommand implements Callable<Integer> {

  /** The niceness a served demo's containers run at, below the commands run against it. */
  static final int SERVED_NICENESS = 19;

  @Option(
      names = "--scenario",
      paramLabel = "demo|burst",
      defaultValue = "demo",
      description = "demo (default) or burst, a scheduling benchmark (below).")
  String scenario;

  @Option(
      names = "--nodes",
      paramLabel = "N",
      defaultValue = "4",
      description = "burst: nodes of 8x 910B3 (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--pods",
      paramLabel = "M",
      defaultValue = "400",
      description = "burst: pods created at once (default: ${DEFAULT-VALUE}).")
  int pods;

  @Option(
      names = "--shapes",
      paramLabel = "deployment|mix",
      defaultValue = "deployment",
      description =
          "burst: replicas of one size (5 %% AI Core, 4 GiB) or a seeded mix of five sizes"
              + " (default: ${DEFAULT-VALUE}).")
  String shapes;

  @Option(
      names = "--policy",
      paramLabel = "POLICY",
      defaultValue = "fragmentation-aware",
      converter = PlacementPolicyConverter.class,
      description =
          "burst: the pods' node and chip policy: binpack, spread or fragmentation-aware"
              + " (default: ${DEFAULT-VALUE}).")
  PlacementPolicy policy;

  @Option(
      names = "--no-workloads",
      description =
          "Run no container processes: a pod is Running once admitted and handed out its"
              + " vNPUs (for burst, so that hundreds of pods measure scheduling, not the"
              + " machine).")
  boolean noWorkloads;

  @Option(
      names = "--no-sequential",
      description = "burst: skip placing the pods one at a time (chipsUsedSequential).")
  boolean noSequential;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "10m",
      converter = DurationConverter.class,
      description =
          "burst: how long a run may take before it is reported as it stands (default:"
              + " ${DEFAULT-VALUE}).")
  Duration timeout;

  @Mixin OutputOption output;

  @Option(
      names = "--once",
      description = "Exit after the scenario instead of serving until Ctrl-C.")
  boolean once;

  @Option(
      names = "--scheduler",
      paramLabel = "volcano|kube-scheduler",
      defaultValue = "volcano",
      description =
          "Which scheduler's protocol drives the extender: Volcano's extender plugin (predicate,"
              + " prioritize, allocateFunc) or kube-scheduler's extender (filter, prioritize,"
              + " bind). Default: ${DEFAULT-VALUE}.")
  String scheduler;

  @Option(
      names = "--control-plane",
      paramLabel = "embedded|real",
      defaultValue = "embedded",
      description =
          "embedded (default): the API server and the schedulers are this process's emulations;"
              + " real: a real control plane built from upstream Go modules (etcd,"
              + " kube-apiserver, kube-controller-manager, kube-scheduler, Volcano; needs Go and"
              + " the module proxy for the first build, docs/real-cluster.md) with the chart"
              + " installed as a Helm release, and the same scenario on it.")
  String controlPlane;

  @Option(
      names = "--compare-embedded",
      description =
          "With --control-plane real: run the scenario on the embedded sandbox first, and print"
              + " pod by pod where the emulators and the real components agree.")
  boolean compareEmbedded;

  @Option(
      names = "--burst",
      paramLabel = "PODS",
      defaultValue = "24",
      description = "Inference pods in the burst (default: ${DEFAULT-VALUE}).")
  int burst;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Seed of the burst's pod sizes (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--directory",
      paramLabel = "DIR",
      description =
          "Where node state, container logs, the component log and the kubeconfig go (default: a"
              + " new vnpu-demo-* directory under the system's temporary directory).")
  Path directory;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException, InterruptedException {
    Sandbox.Driver driver =
        switch (scheduler) {
          case "volcano" -> Sandbox.Driver.VOLCANO;
          case "kube-scheduler" -> Sandbox.Driver.KUBE_SCHEDULER;
          default ->
              throw new InputException(
                  "--scheduler " + scheduler + ": must be volcano or kube-scheduler");
        };
    if (burst < 0 || burst > 200) {
      throw new InputException("--burst " + burst + ": must be 0..200");
    }
    boolean burstScenario =
        switch (scenario) {
          case "demo" -> false;
          case "burst" -> true;
          default -> throw new InputException("--scenario " + scenario + ": must be demo or burst");
        };
    BurstScenario.Shapes burstShapes =
        switch (shapes) {
          case "deployment" -> BurstScenario.Shapes.DEPLOYMENT;
          case "mix" -> BurstScenario.Shapes.MIX;
          default -> throw new InputException("--shapes " + shapes + ": must be deployment or mix");
        };
    if (nodes < 1 || nodes > 1000 || pods < 1 || pods > 100_000) {
      throw new InputException(
          "--nodes " + nodes + " --pods " + pods + ": must be 1..1000 nodes and 1..100000 pods");
    }
    // Absolute: containers run in directories of their own and find the workload by this path.
    Path root =
        (directory != null ? directory : Files.createTempDirectory("vnpu-demo-")).toAbsolutePath();
    Files.createDirectories(root);
    Path log = root.resolve("components.log");
    PrintWriter out = spec.commandLine().getOut();
    // The components log to a file (slf4j-simple writes to the current System.err), so the demo's
    // own output stays readable; the mock API server's per-request lines are left out.
    PrintStream terminal = System.err;
    System.setErr(new PrintStream(Files.newOutputStream(log), true, StandardCharsets.UTF_8));
    ApiServer.quietRequests();
    try {
      if (controlPlane.equals("real")) {
        if (burstScenario) {
          throw new InputException("--control-plane real runs the demo scenario, not burst");
        }
        return new RealDemo(root, driver, burst, seed, once, compareEmbedded)
            .run(log, out, spec.commandLine().getErr());
      }
      if (!controlPlane.equals("embedded")) {
        throw new InputException("--control-plane " + controlPlane + ": must be embedded or real");
      }
      return burstScenario
          ? runBurst(root, driver, burstShapes, log, out, terminal)
          : run(root, driver, log, out);
    } finally {
      System.err.flush();
      System.setErr(terminal);
    }
  }

  private int run(Path root, Sandbox.Driver driver, Path log, PrintWriter out)
      throws IOException, InterruptedException {

    out.println(
        "vNPU demo: starting the API server, 4 nodes, 2 DRA nodes and the scheduler in " + root);
    out.flush();
    Sandbox sandbox;
    try {
      sandbox =
          Sandbox.start(
              new SandboxOptions(root, driver, DemoCluster.NODES)
                  .withDraNodes(DemoCluster.DRA_NODES)
                  .withRebalancing(DemoCluster.REBALANCING)
                  // Served, its 40 busy containers would starve the commands people run against
                  // it (vnpu get took minutes); once, they keep the machine to themselves.
                  .withWorkloadNiceness(once ? 0 : SERVED_NICENESS));
    } catch (IOException | RuntimeException e) {
      spec.commandLine()
          .getErr()
          .println("vnpu demo: the sandbox did not start: " + e.getMessage());
      spec.commandLine().getErr().println("  component log: " + log);
      return 2;
    }
    try {
      DemoText.sandbox(out, sandbox, log);
      Scenario.Report report =
          new Scenario(
                  sandbox,
                  line -> {
                    out.println(line);
                    out.flush();
                  },
                  burst,
                  seed)
              .run();
      DemoText.report(out, report);
      if (!once) {
        out.println();
        out.println("Serving until Ctrl-C; look inside with the kubeconfig and URLs above.");
        out.flush();
        NodeAgentOptions.runUntilStopped(sandbox);
      }
      return report.passed() ? 0 : 1;
    } finally {
      if (once) {
        sandbox.close();
      }
    }
  }

  /**
   * The burst, then the same pods one at a time on a fresh sandbox; the report as text or JSON.
   * Progress goes to the terminal's standard error when the report is JSON.
   */
  private int runBurst(
      Path root,
      Sandbox.Driver driver,
      BurstScenario.Shapes burstShapes,
      Path log,
      PrintWriter out,
      PrintStream terminal)
      throws IOException, InterruptedException {
    Consumer<String> progress =
        output.format == OutputFormat.JSON
            ? line -> terminal.println(line)
            : line -> {
              out.println(line);
              out.flush();
            };
    progress.accept(
        "vNPU burst: "
            + pods
            + " pods ("
            + shapes
            + ", "
            + policy.wireName()
            + ") onto "
            + nodes
            + " nodes of 8x 910B3, scheduled as "
            + scheduler
            + " does; components log: "
            + log);
    BurstScenario.Report report;
    try (Sandbox sandbox = burstSandbox(root.resolve("burst"), driver)) {
      report =
          new BurstScenario(sandbox, progress, timeout)
              .burst(BurstScenario.pods(pods, burstShapes, policy, seed));
    }
    if (!noSequential) {
      progress.accept("      the same pods one at a time, on a fresh sandbox");
      try (Sandbox sandbox = burstSandbox(root.resolve("sequential"), driver)) {
        report =
            report.withSequential(
                new BurstScenario(sandbox, progress, timeout)
                    .sequential(BurstScenario.pods(pods, burstShapes, policy, seed)));
      }
    }
    BurstScenario.Report result = report;
    out.println(output.render(Map.of("burst", result), ignored -> DemoText.burst(result)));
    out.flush();
    return result.bound() == result.pods() && result.mismatchedHandouts() == 0 ? 0 : 1;
  }

  private Sandbox burstSandbox(Path directory, Sandbox.Driver driver) throws IOException {
    SandboxOptions options = new SandboxOptions(directory, driver, BurstScenario.nodes(nodes));
    return Sandbox.start(noWorkloads ? options.withoutWorkloads() : options);
  }
}
