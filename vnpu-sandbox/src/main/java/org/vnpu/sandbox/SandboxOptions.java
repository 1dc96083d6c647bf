package org.vnpu.sandbox;

import java.nio.file.Path;
import java.util.List;
import org.vnpu.scheduler.RebalanceSettings;

/**
 * How a sandbox runs.
 *
 * @param directory where node state, containers' files and logs, and the kubeconfig go
 * @param driver which scheduler calls the extender
 * @param nodes the simulated nodes
 * @param volcano the Volcano configuration the Volcano session follows
 * @param kubeScheduler the kube-scheduler configuration the kube-scheduler cycle follows
 * @param workloads whether pods' containers run as processes (the workload under the shim);
 *     without, a pod is Running once admitted and handed out its vNPUs (scheduling benchmarks)
 * @param rebalancing how the scheduler's rebalancer runs ({@link #Sandbox.NO_REBALANCING} by
 *     default)
 * @param workloadNiceness the niceness containers run at, 0..19 (0 by default): a served demo's
 *     containers yield the machine to the commands people run against it
 */
public record SandboxOptions(
    Path directory,
    Sandbox.Driver driver,
    List<NodeSpec> nodes,
    VolcanoConfig volcano,
    KubeSchedulerConfig kubeScheduler,
    boolean workloads,
    RebalanceSettings rebalancing,
    int workloadNiceness,
    List<NodeSpec> draNodes) {
  public SandboxOptions {
    nodes = List.copyOf(nodes);
    draNodes = List.copyOf(draNodes);
  }

  /**
   * A sandbox whose schedulers run with the configurations the chart ships, without the rebalancer.
   */
  public SandboxOptions(Path directory, Sandbox.Driver driver, List<NodeSpec> nodes) {
    this(
        directory,
        driver,
        nodes,
        VolcanoConfig.shipped(),
        KubeSchedulerConfig.shipped(),
        true,
        Sandbox.NO_REBALANCING,
        0,
        List.of());
  }

  /** These options, with no container processes. */
  public SandboxOptions withoutWorkloads() {
    return new SandboxOptions(
        directory,
        driver,
        nodes,
        volcano,
        kubeScheduler,
        false,
        rebalancing,
        workloadNiceness,
        draNodes);
  }

  /** These options, with the rebalancer run as {@code settings} say. */
  public SandboxOptions withRebalancing(RebalanceSettings settings) {
    return new SandboxOptions(
        directory,
        driver,
        nodes,
        volcano,
        kubeScheduler,
        workloads,
        settings,
        workloadNiceness,
        draNodes);
  }

  /** These options, with containers at {@code niceness} (0..19). */
  public SandboxOptions withWorkloadNiceness(int niceness) {
    if (niceness < 0 || niceness > 19) {
      throw new IllegalArgumentException("workload niceness " + niceness + " is not in 0..19");
    }
    return new SandboxOptions(
        directory,
        driver,
        nodes,
        volcano,
        kubeScheduler,
        workloads,
        rebalancing,
        niceness,
        draNodes);
  }

  /**
   * These options, with nodes that offer their chips through the DRA driver (docs/dra.md); pods
   * with ResourceClaims are placed as the chart's DRA profile places them.
   */
  public SandboxOptions withDraNodes(List<NodeSpec> specs) {
    return new SandboxOptions(
        directory,
        driver,
        nodes,
        volcano,
        kubeScheduler,
        workloads,
        rebalancing,
        workloadNiceness,
        specs);
  }
}
