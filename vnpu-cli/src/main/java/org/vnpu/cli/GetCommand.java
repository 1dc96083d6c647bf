package org.vnpu.cli;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.scheduler.Scheduler;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code vnpu get nodes | chips [NODE] | pods}: the cluster's vNPUs as the scheduler sees them. */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Show the vNPU nodes, chips or pods of a cluster as the scheduler sees them: it reads the"
          + " cluster through the kubeconfig, as kubectl does, and rebuilds the scheduler's ledger"
          + " (allocations verified with the scheduler's public keys). It changes nothing.",
      "  nodes        split mode, chips, healthy chips, and allocated AI Core, memory and vNPUs",
      "  chips [NODE] each chip with what is allocated on it and the pods it serves",
      "  pods         the pods with vNPUs: node, chips, slice, policy and priority"
    })
final class GetCommand implements Callable<Integer> {

  /** What to show. */
  enum What {
    NODES,
    CHIPS,
    PODS
  }

  @Parameters(index = "0", paramLabel = "nodes|chips|pods", description = "What to show.")
  What what;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "NODE",
      description = "With chips: only this node's.")
  String onlyNode;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NAMESPACE",
      description = "With pods: this namespace (default: the kubeconfig context's, or default).")
  String namespace;

  @Option(
      names = {"-A", "--all-namespaces"},
      description = "With pods: every namespace.")
  boolean allNamespaces;

  @Mixin ClusterOptions cluster;

  @Mixin CatalogOption catalog;

  @Mixin OutputOption output;

  @Spec CommandSpec spec;

  /** One node. Percentages are of the node's chips together. */
  record NodeRow(
      String node,
      String mode,
      int chips,
      int healthy,
      double aiCorePercent,
      long memoryUsedMiB,
      long memoryMiB,
      int vnpus,
      int vnpuSlots) {}

  /** One chip and the pods it serves. */
  record ChipRow(
      String node,
      int chip,
      String type,
      String dieId,
      boolean healthy,
      double aiCorePercent,
      long memoryUsedMiB,
      long memoryMiB,
      int vnpus,
      int vnpuSlots,
      List<String> pods) {}

  /** One pod with vNPUs. */
  record PodRow(
      String namespace,
      String pod,
      String node,
      List<Integer> chips,
      List<String> slices,
      String priority) {}

  @Override
  public Integer call() {
    if (onlyNode != null && what != What.CHIPS) {
      throw new InputException("NODE " + onlyNode + ": only vnpu get chips takes a node");
    }
    if ((namespace != null || allNamespaces) && what != What.PODS) {
      throw new InputException("-n and -A choose the namespace of vnpu get pods only");
    }
    try (KubernetesClient client = cluster.client()) {
      Scheduler scheduler = cluster.ledger(client, catalog.load());
      PrintWriter out = spec.commandLine().getOut();
      switch (what) {
        case NODES -> out.print(output.render(nodes(scheduler), GetCommand::nodesText));
        case CHIPS -> out.print(output.render(chips(scheduler, client), GetCommand::chipsText));
        case PODS -> out.print(output.render(pods(scheduler, client), GetCommand::podsText));
      }
      out.flush();
    }
    return 0;
  }

  private static List<NodeRow> nodes(Scheduler scheduler) {
    List<NodeRow> rows = new ArrayList<>();
    for (NodeState node : scheduler.nodes()) {
      List<ChipState> chips = node.chips();
      int slots = node.inventory().maxSharesPerChip() * chips.size();
      rows.add(
          new NodeRow(
              node.name(),
              node.inventory().splitMode().wireName(),
              chips.size(),
              (int) chips.stream().filter(c -> c.chip().healthy()).count(),
              chips.isEmpty()
                  ? 0
                  : chips.stream().mapToDouble(GetCommand::aiCoreTaken).sum() / chips.size(),
              chips.stream().mapToLong(ChipState::memoryUsedMiB).sum(),
              chips.stream().mapToLong(c -> c.chip().memoryMiB()).sum(),
              chips.stream().mapToInt(ChipState::shares).sum(),
              slots));
    }
    return rows;
  }

  private List<ChipRow> chips(Scheduler scheduler, KubernetesClient client) {
    Map<String, String> names = podNames(client.pods().inAnyNamespace().list().getItems());
    Map<String, List<String>> podsByChip = new HashMap<>();
    for (AllocationPlan plan : scheduler.placements().values()) {
      String pod = names.getOrDefault(plan.podUid(), "uid " + plan.podUid());
      vnpus(plan.allocation()).stream()
          .map(vnpu -> plan.node() + "/" + vnpu.chipIndex())
          .distinct()
          .forEach(chip -> podsByChip.computeIfAbsent(chip, c -> new ArrayList<>()).add(pod));
    }
    List<ChipRow> rows = new ArrayList<>();
    boolean found = false;
    for (NodeState node : scheduler.nodes()) {
      if (onlyNode != null && !onlyNode.equals(node.name())) {
        continue;
      }
      found = true;
      for (ChipState state : node.chips()) {
        List<String> pods =
            podsByChip.getOrDefault(node.name() + "/" + state.chip().index(), List.of());
        rows.add(
            new ChipRow(
                node.name(),
                state.chip().index(),
                state.chip().model().name(),
                state.chip().dieId(),
                state.chip().healthy(),
                aiCoreTaken(state),
                state.memoryUsedMiB(),
                state.chip().memoryMiB(),
                state.shares(),
                node.inventory().maxSharesPerChip(),
                pods.stream().sorted().toList()));
      }
    }
    if (onlyNode != null && !found) {
      throw new InputException("node " + onlyNode + " has no vNPU chips the scheduler knows of");
    }
    return rows;
  }

  private List<PodRow> pods(Scheduler scheduler, KubernetesClient client) {
    String chosen =
        allNamespaces
            ? null
            : namespace != null
                ? namespace
                : client.getNamespace() == null ? "default" : client.getNamespace();
    Map<String, Pod> byUid = new HashMap<>();
    for (Pod pod : client.pods().inAnyNamespace().list().getItems()) {
      byUid.put(pod.getMetadata().getUid(), pod);
    }
    Map<String, PodRow> rows = new TreeMap<>();
    for (AllocationPlan plan : scheduler.placements().values()) {
      Pod pod = byUid.get(plan.podUid());
      if (pod == null || (chosen != null && !chosen.equals(pod.getMetadata().getNamespace()))) {
        continue;
      }
      List<VnpuAssignment> vnpus = vnpus(plan.allocation());
      rows.put(
          pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(),
          new PodRow(
              pod.getMetadata().getNamespace(),
              pod.getMetadata().getName(),
              plan.node(),
              vnpus.stream().map(VnpuAssignment::chipIndex).toList(),
              vnpus.stream().map(VnpuAssignment::slice).toList(),
              plan.allocation().priority().wireName()));
    }
    return List.copyOf(rows.values());
  }

  /** The compute percent of the chip that is reserved, 0..100. */
  private static double aiCoreTaken(ChipState state) {
    return 100 - state.freeComputePercent();
  }

  private static List<VnpuAssignment> vnpus(PodAllocation allocation) {
    return allocation.containers().stream()
        .map(ContainerAllocation::vnpus)
        .flatMap(List::stream)
        .toList();
  }

  private static Map<String, String> podNames(List<Pod> pods) {
    return pods.stream()
        .collect(
            Collectors.toMap(
                pod -> pod.getMetadata().getUid(),
                pod -> pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(),
                (a, b) -> a));
  }

  private static String nodesText(List<NodeRow> rows) {
    if (rows.isEmpty()) {
      return "No vNPU node: no node has registered chips with the vNPU device plugin.\n";
    }
    TextTable table =
        new TextTable("NODE", "MODE", "CHIPS", "HEALTHY", "AI CORE", "MEMORY", "VNPUS");
    for (NodeRow row : rows) {
      table.row(
          row.node(),
          row.mode(),
          row.chips(),
          row.healthy(),
          percent(row.aiCorePercent()),
          MemoryText.of(row.memoryUsedMiB()) + " / " + MemoryText.of(row.memoryMiB()),
          row.vnpus() + " / " + row.vnpuSlots());
    }
    return table.render("");
  }

  private static String chipsText(List<ChipRow> rows) {
    if (rows.isEmpty()) {
      return "No vNPU chip: no node has registered chips with the vNPU device plugin.\n";
    }
    TextTable table =
        new TextTable("NODE", "CHIP", "TYPE", "HEALTH", "AI CORE", "MEMORY", "VNPUS", "PODS");
    for (ChipRow row : rows) {
      table.row(
          row.node(),
          row.chip(),
          row.type(),
          row.healthy() ? "healthy" : "unhealthy",
          percent(row.aiCorePercent()),
          MemoryText.of(row.memoryUsedMiB()) + " / " + MemoryText.of(row.memoryMiB()),
          row.vnpus() + " / " + row.vnpuSlots(),
          row.pods().isEmpty() ? "-" : String.join(",", row.pods()));
    }
    return table.render("");
  }

  private static String podsText(List<PodRow> rows) {
    if (rows.isEmpty()) {
      return "No pod with vNPUs in the chosen namespace (-A for all).\n";
    }
    TextTable table = new TextTable("NAMESPACE", "POD", "NODE", "CHIPS", "SLICE", "PRIORITY");
    for (PodRow row : rows) {
      table.row(
          row.namespace(),
          row.pod(),
          row.node(),
          row.chips().stream().map(String::valueOf).collect(Collectors.joining(",")),
          row.slices().stream().distinct().collect(Collectors.joining("; ")),
          row.priority());
    }
    return table.render("");
  }

  private static String percent(double value) {
    return String.format("%.0f %%", value);
  }
}
