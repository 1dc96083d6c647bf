package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What the demo's {@link Scenario} runs on: the embedded {@link Sandbox}, or a real control plane
 * with the same simulated nodes ({@code vnpu-cluster}'s {@code RealCluster}). The scenario submits
 * pods through the client and reads back what the schedulers, nodes and exporters did.
 */
public interface ScenarioCluster {

  /** A client that may do everything a cluster administrator may. */
  KubernetesClient client();

  /** Which scheduler places the scenario's pods. */
  Sandbox.Driver driver();

  List<SandboxNode> nodes();

  /** The nodes that offer their chips through DRA (none where the cluster runs no DRA driver). */
  List<DraNode> draNodes();

  /** The scheduler extender's plain HTTP URL: its health and metrics. */
  String schedulerUrl();

  /**
   * Why the scheduler left {@code pod} unbound, once it has decided so in a scheduling attempt;
   * empty while it has not (it did not try yet, or it only waits: {@link #waits}).
   */
  Optional<String> unschedulable(Pod pod);

  /**
   * Whether a scheduler's reason for not binding a pod says only that the pod waits to be placed:
   * for a node's lock, which another pod's reservation frees in moments, or, pipelined by Volcano,
   * for the pods releasing on its node.
   */
  static boolean waits(String reason) {
    return reason != null
        && (reason.contains(SchedulingProtocol.LOCKED)
            || reason.contains(SchedulingProtocol.PIPELINED));
  }

  /** The directory a node keeps its state and its pods' containers in. */
  Path nodeDirectory(String node);

  /**
   * Whether Volcano's preempt action evicts for a pod whose node has room in sum but on no one
   * chip: it asks the extender's predicate about the node with its evictions released (Volcano
   * master since commit 5a15213, expected in 1.16; docs/colocation.md), where Volcano 1.13 to 1.15
   * stop at the node's resource sums.
   */
  default boolean volcanoPreemptsForAChip() {
    return true;
  }

  /** The node called {@code name}. */
  default SandboxNode node(String name) {
    return nodes().stream()
        .filter(node -> node.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no node " + name));
  }

  /** The {@code spec.schedulerName} the scenario's pods name. */
  default String schedulerName() {
    return driver() == Sandbox.Driver.VOLCANO ? "volcano" : "vnpu-scheduler";
  }
}
