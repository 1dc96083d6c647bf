package org.vnpu.cli;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.scheduler.SchedulerReader;
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
      "  pods         the pods with vNPUs: node, chips, slice, policy and priority",
      "With --metrics, nodes and chips also show what the exporters measured; -o wide adds chip"
          + " types and die IDs; on a terminal, AI Core and memory get bars."
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

  @Mixin MetricsOption metrics;

  @Mixin OutputOption output;

  @Spec CommandSpec spec;

  /**
   * One node. Percentages are of the node's chips together; allocated figures are what allocations
   * reserve, measured ones what the exporters report (null without {@code --metrics}).
   */
  record NodeRow(
      String node,
      String mode,
      String chipTypes,
      int chips,
      int healthy,
      double aiCorePercent,
      long memoryUsedMiB,
      long memoryMiB,
      int vnpus,
      int vnpuSlots,
      Double measuredAiCorePercent,
      Long measuredMemoryUsedMiB) {}

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
      List<String> pods,
      Double measuredAiCorePercent,
      Long measuredMemoryUsedMiB) {}

  /** One pod with vNPUs. */
  record PodRow(
      String namespace,
      String pod,
      String node,
      List<Integer> chips,
      List<String> dieIds,
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
      SchedulerReader scheduler = cluster.reader(client, catalog.load());
      PrintWriter out = spec.commandLine().getOut();
      Terminal terminal = Terminal.detect();
      switch (what) {
        case NODES ->
            out.print(
                output.render(
                    nodes(scheduler),
                    rows -> GetTables.nodes(rows, false, terminal),
                    rows -> GetTables.nodes(rows, true, terminal)));
        case CHIPS ->
            out.print(
                output.render(
                    chips(scheduler, client),
                    rows -> GetTables.chips(rows, false, terminal),
                    rows -> GetTables.chips(rows, true, terminal)));
        case PODS ->
            out.print(
                output.render(
                    pods(scheduler, client),
                    rows -> GetTables.pods(rows, false),
                    rows -> GetTables.pods(rows, true)));
      }
      out.flush();
    }
    return 0;
  }

  private List<NodeRow> nodes(SchedulerReader scheduler) {
    Map<String, MetricsOption.ChipUse> use = metrics.chipUse();
    List<NodeRow> rows = new ArrayList<>();
    for (NodeState node : scheduler.nodes()) {
      List<ChipState> chips = node.chips();
      int slots = node.inventory().maxSharesPerChip() * chips.size();
      List<MetricsOption.ChipUse> measured =
          chips.stream()
              .map(c -> use.get(node.name() + "/" + c.chip().index()))
              .filter(Objects::nonNull)
              .toList();
      rows.add(
          new NodeRow(
              node.name(),
              node.inventory().splitMode().wireName(),
              chips.stream()
                  .collect(
                      Collectors.groupingBy(
                          c -> c.chip().model().name(), TreeMap::new, Collectors.counting()))
                  .entrySet()
                  .stream()
                  .map(e -> e.getValue() + "× " + e.getKey())
                  .collect(Collectors.joining(", ")),
              chips.size(),
              (int) chips.stream().filter(c -> c.chip().healthy()).count(),
              chips.isEmpty()
                  ? 0
                  : chips.stream().mapToDouble(GetCommand::aiCoreTaken).sum() / chips.size(),
              chips.stream().mapToLong(ChipState::memoryUsedMiB).sum(),
              chips.stream().mapToLong(c -> c.chip().memoryMiB()).sum(),
              chips.stream().mapToInt(ChipState::shares).sum(),
              slots,
              measured.isEmpty()
                  ? null
                  : 100
                      * measured.stream().mapToDouble(MetricsOption.ChipUse::aiCoreRatio).sum()
                      / measured.size(),
              measured.isEmpty()
                  ? null
                  : measured.stream().mapToLong(MetricsOption.ChipUse::memoryUsedBytes).sum()
                      >> 20));
    }
    return rows;
  }

  private List<ChipRow> chips(SchedulerReader scheduler, KubernetesClient client) {
    Map<String, String> names = podNames(client.pods().inAnyNamespace().list().getItems());
    Map<String, MetricsOption.ChipUse> use = metrics.chipUse();
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
        String chip = node.name() + "/" + state.chip().index();
        List<String> pods = podsByChip.getOrDefault(chip, List.of());
        MetricsOption.ChipUse measured = use.get(chip);
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
                pods.stream().sorted().toList(),
                measured == null ? null : 100 * measured.aiCoreRatio(),
                measured == null ? null : measured.memoryUsedBytes() >> 20));
      }
    }
    if (onlyNode != null && !found) {
      throw new InputException("node " + onlyNode + " has no vNPU chips the scheduler knows of");
    }
    return rows;
  }

  private List<PodRow> pods(SchedulerReader scheduler, KubernetesClient client) {
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
              vnpus.stream().map(VnpuAssignment::dieId).toList(),
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
}
