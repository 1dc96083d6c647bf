package org.vnpu.sandbox;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The demo's script, on a sandbox with {@link DemoCluster#NODES}: the example pods of
 * deploy/examples, two pods sharing one chip at fixed AI Core shares, an online and an offline pod
 * sharing a chip, a pod whose model needs more device memory than its quota, and a burst of
 * inference pods. It reports where every vNPU went, what did not fit and why, how that compares
 * with whole-card allocation, and checks what must hold: examples placed as their files promise, no
 * chip over-committed, the quota enforced, the shares measured by the exporter within 5 points, the
 * metrics present.
 */
public final class Scenario {

  /** The namespace the scenario's pods live in. */
  public static final String NAMESPACE = "default";

  /** One vNPU of a placed pod. */
  public record Row(String pod, String node, int chip, String chipType, String slice) {}

  /** A pod the scheduler found no place for, and why. */
  public record Unfit(String pod, String reason) {}

  /** Something the scenario promised, and whether it held. */
  public record Check(String name, boolean passed, String detail) {}

  /**
   * Everything the scenario found.
   *
   * @param comparison lines comparing vNPU sharing with whole-card allocation
   */
  public record Report(
      List<Row> placements, List<Unfit> unfit, List<String> comparison, List<Check> checks) {
    public boolean passed() {
      return checks.stream().allMatch(Check::passed);
    }
  }

  /**
   * Whether the chip the pod gets may depend on the order in which a scheduler took the pods of a
   * batch: the examples with the hardware slice, then the examples that may go anywhere, and the
   * burst are submitted together (two pods of one batch can take each other's chip), and the pod
   * after them finds the chips as that order left them. The others are decided alone, on the same
   * cluster in every run.
   */
  public static boolean orderDecides(String pod) {
    return pod.startsWith(BurstStep.BURST_PREFIX)
        || pod.equals(QuotaStep.POD)
        || pod.equals(ExamplesStep.HARD_SLICE)
        || ExamplesStep.EXAMPLES.containsKey(pod);
  }

  private final ScenarioCluster sandbox;
  private final Consumer<String> progress;
  private final int burst;
  private final long seed;
  private final List<Check> checks = new ArrayList<>();

  /**
   * @param progress receives a line as each step starts and ends
   * @param burst how many inference pods the burst submits
   * @param seed the burst's sizes are drawn with it
   */
  public Scenario(ScenarioCluster sandbox, Consumer<String> progress, int burst, long seed) {
    this.sandbox = sandbox;
    this.progress = progress;
    this.burst = burst;
    this.seed = seed;
  }

  /** Runs the script; the sandbox keeps running afterwards. */
  public Report run() throws IOException, InterruptedException {
    ScenarioStep.Context context = new ScenarioStep.Context(sandbox, progress, checks);
    List<String> all = new ArrayList<>();
    progress.accept(
        "[1/9] pods that accept only 310P3, then a pod that accepts any chip type: it leaves the"
            + " scarce 310P3 chips to them");
    new ScarceTypeStep(context).run();

    progress.accept(
        "[2/9] a pod of "
            + RebalanceStep.WHOLE_CARD_COUNT
            + " whole cards that fits nowhere until the rebalancer moves shared pods");
    new RebalanceStep(context).run();

    // The steps pinned to a chip come before the examples: where the unpinned examples land
    // depends on when the node locks before them are released, and they could take those chips.
    progress.accept(
        "[3/9] two pods sharing "
            + SharesStep.SHARED_CHIP
            + " at fixed AI Core shares of 30 % and 60 %");
    new SharesStep(context).run();
    all.addAll(SharesStep.pods());

    progress.accept(colocationTitle());
    new ColocationStep(context).run();
    all.addAll(List.of("online", "offline"));
    PreemptionStep preemption = new PreemptionStep(context);
    preemption.run();
    preemption.preemptor().ifPresent(all::add);

    progress.accept("[5/9] the example pods of deploy/examples, and a hardware slice of a 310P3");
    new ExamplesStep(context).run();
    all.addAll(ExamplesStep.pods());

    progress.accept("[6/9] a pod with a 4 GiB quota whose model needs 6 GiB");
    new QuotaStep(context).run();
    all.add(QuotaStep.POD);

    // Before the burst: every workload process the sandbox runs takes host CPU (the shims' waits
    // for their chips' tokens), and beside the burst's two dozen the extender's answers to the DRA
    // scheduler timed out on two cores, leaving the claims unranked.
    if (!sandbox.draNodes().isEmpty()) {
      progress.accept(
          "[7/9] DRA: three quarter-chip claims on the DRA nodes, ranked by the extender, each"
              + " prepared by the DRA driver and run under the shim");
      new ClaimsStep(context).run();
    }

    progress.accept("[8/9] a burst of " + burst + " inference pods");
    BurstStep burstStep = new BurstStep(context, burst, seed);
    burstStep.run();
    all.addAll(burstStep.pods());

    progress.accept("[9/9] reading every node's exporter");
    ClusterChecks report = new ClusterChecks(context, all);
    report.run();
    return report.report();
  }

  /** Step 4's title: co-location, and preemption where Volcano schedules. */
  private String colocationTitle() {
    return "[4/9] an online and an offline pod on "
        + ColocationStep.COLOCATED_CHIP
        + ": online latency alone, then beside 8 ms offline kernels"
        + (sandbox.driver() == Sandbox.Driver.VOLCANO
            ? "; then an online pod preempts an offline one on " + PreemptionStep.PREEMPTED_CHIP
            : "");
  }

  /**
   * The DRA step alone ({@link ClaimsStep}), for a cluster whose NPU nodes all offer their chips
   * through DRA: the chart with {@code dra.enabled} deploys the DRA driver instead of the device
   * plugin, and its kube-scheduler profile serves claims only.
   */
  public List<Check> runClaims() throws IOException, InterruptedException {
    new ClaimsStep(new ScenarioStep.Context(sandbox, progress, checks)).run();
    return List.copyOf(checks);
  }
}
