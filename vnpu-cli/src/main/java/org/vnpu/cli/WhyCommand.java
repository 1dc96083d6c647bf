package org.vnpu.cli;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.engine.Remedy;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.request.PodManifest;
import org.vnpu.kube.NodeBook;
import org.vnpu.kube.PodPhases;
import org.vnpu.kube.PodRequests;
import org.vnpu.scheduler.Explanation;
import org.vnpu.scheduler.Fabric8Views;
import org.vnpu.scheduler.SchedulerReader;
import org.vnpu.scheduler.SchedulingException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code vnpu why NAMESPACE/POD}: why a pod is pending, or where it runs and what it got. */
@Command(
    name = "why",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Explain a vNPU pod. For a pending pod, the scheduler's engine judges it against every node"
          + " over the ledger rebuilt from the cluster as the scheduler rebuilds it, and prints why"
          + " each node refuses it — the sentence of its VnpuUnschedulable event — and what would"
          + " make it fit. For a placed pod, where it runs and what it got, with the measured"
          + " share when --metrics names the exporters. It changes nothing."
    })
final class WhyCommand implements Callable<Integer> {

  @Parameters(
      paramLabel = "[NAMESPACE/]POD",
      description = "The pod (without a namespace: -n's, else the kubeconfig context's).")
  String target;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NAMESPACE",
      description = "The pod's namespace when POD names none.")
  String namespace;

  @Mixin ClusterOptions cluster;

  @Mixin CatalogOption catalog;

  @Mixin MetricsOption metrics;

  @Mixin OutputOption output;

  @Spec CommandSpec spec;

  /** How one node answers the pod. */
  record NodeAnswer(String node, boolean fits, String refusal, String needed, String change) {}

  /** One vNPU the pod got, with its measured share when an exporter reports it. */
  record Vnpu(String container, int chip, String type, String slice, Double measuredShare) {}

  /**
   * The answer: {@code state} is {@code no-vnpu}, {@code placed}, {@code pending} or {@code
   * invalid}; a placed pod has its node, phase and vNPUs, a pending one the scheduler's sentence
   * and every node's answer, an invalid one the rule it breaks.
   */
  record Answer(
      String pod,
      String state,
      String node,
      String phase,
      List<Vnpu> vnpus,
      String unschedulable,
      List<NodeAnswer> nodes) {}

  @Override
  public Integer call() {
    try (KubernetesClient client = cluster.client()) {
      String[] name = podName(client);
      Pod pod = client.pods().inNamespace(name[0]).withName(name[1]).get();
      if (pod == null) {
        throw new InputException(
            "pod " + name[0] + "/" + name[1] + " not found (kubectl get pod -n " + name[0] + ")");
      }
      SchedulerReader scheduler = cluster.reader(client, catalog.load());
      Answer answer = answer(scheduler, client, pod);
      PrintWriter out = spec.commandLine().getOut();
      out.print(output.render(answer, WhyCommand::text));
      out.flush();
    }
    return 0;
  }

  private String[] podName(KubernetesClient client) {
    int slash = target.indexOf('/');
    if (slash >= 0 && namespace != null) {
      throw new InputException(
          "POD " + target + " names its namespace; -n " + namespace + " would contradict it");
    }
    if (slash == 0 || slash == target.length() - 1 || target.indexOf('/', slash + 1) >= 0) {
      throw new InputException("POD " + target + ": must be NAMESPACE/POD or POD");
    }
    return slash > 0
        ? new String[] {target.substring(0, slash), target.substring(slash + 1)}
        : new String[] {
          namespace != null
              ? namespace
              : client.getNamespace() == null ? "default" : client.getNamespace(),
          target
        };
  }

  private Answer answer(SchedulerReader scheduler, KubernetesClient client, Pod pod) {
    PodManifest manifest = Fabric8Views.manifest(pod);
    String id = manifest.namespace() + "/" + manifest.name();
    String phase = PodPhases.of(pod);
    if (!scheduler.requestsVnpus(manifest)) {
      try {
        scheduler.explain(manifest, List.of()); // what a request that does not parse breaks
      } catch (SchedulingException e) {
        return invalid(id, phase, e);
      }
      return new Answer(id, "no-vnpu", pod.getSpec().getNodeName(), phase, List.of(), null, null);
    }
    AllocationPlan plan = scheduler.placements().get(manifest.uid());
    if (plan != null) {
      return new Answer(id, "placed", plan.node(), phase, vnpus(manifest, plan), null, null);
    }
    List<Node> nodes = client.nodes().list().getItems();
    Map<String, NodeAnswer> refusedFirst = schedulersOwnCheck(client, pod, nodes);
    List<String> asked =
        nodes.stream()
            .map(n -> n.getMetadata().getName())
            .filter(n -> !refusedFirst.containsKey(n))
            .sorted()
            .toList();
    Explanation explanation;
    try {
      explanation = scheduler.explain(manifest, asked);
    } catch (SchedulingException e) {
      return invalid(id, phase, e);
    }
    List<NodeAnswer> answers = new ArrayList<>(refusedFirst.values());
    explanation
        .verdicts()
        .forEach(
            (node, verdict) -> {
              Remedy remedy = explanation.remedies().get(node);
              answers.add(
                  new NodeAnswer(
                      node,
                      verdict.fits(),
                      verdict.reason(),
                      remedy == null ? null : remedy.needed(),
                      remedy == null ? null : remedy.detail()));
            });
    answers.sort(Comparator.comparing(NodeAnswer::node));
    return new Answer(
        id, "pending", null, phase, List.of(), explanation.unschedulable(), List.copyOf(answers));
  }

  /** The pod's vNPUs, each with the AI Core share the exporter measured, where it did. */
  private List<Vnpu> vnpus(PodManifest manifest, AllocationPlan plan) {
    Map<String, Double> shares = metrics.containerShares(manifest.namespace(), manifest.name());
    List<Vnpu> vnpus = new ArrayList<>();
    for (ContainerAllocation container : plan.allocation().containers()) {
      for (VnpuAssignment vnpu : container.vnpus()) {
        vnpus.add(
            new Vnpu(
                container.name(),
                vnpu.chipIndex(),
                vnpu.chipType(),
                vnpu.slice(),
                shares.get(container.name() + "/" + vnpu.chipIndex())));
      }
    }
    return vnpus;
  }

  /** The answer for a pod whose resources or annotations break the contract, with the rule. */
  private static Answer invalid(String id, String phase, SchedulingException e) {
    return new Answer(id, "invalid", null, phase, List.of(), e.getMessage(), List.of());
  }

  /**
   * The nodes the pod's scheduler refuses with its own resource check, before it asks the vNPU
   * extender: Volcano's {@code predicate} for pods of {@code schedulerName: volcano}, else
   * kube-scheduler's {@code NodeResourcesFit}, which checks the vNPU resources too (the chart's
   * {@code managedResources} are not {@code ignoredByScheduler}). Taints, affinity and the other
   * plugins are not judged here.
   */
  private static Map<String, NodeAnswer> schedulersOwnCheck(
      KubernetesClient client, Pod pod, List<Node> nodes) {
    Map<String, BigDecimal> request = PodRequests.of(pod);
    boolean volcano = "volcano".equals(pod.getSpec().getSchedulerName());
    Map<String, NodeAnswer> refused = new LinkedHashMap<>();
    NodeBook.of(nodes, client.pods().inAnyNamespace().list().getItems())
        .forEach(
            (node, book) -> {
              List<String> short_ =
                  volcano
                      ? book.volcanoShortfall(request, true)
                      : List.copyOf(book.kubeShortfall(request, List.of()).keySet());
              if (!short_.isEmpty()) {
                String resource = short_.get(0);
                refused.put(
                    node,
                    new NodeAnswer(
                        node,
                        false,
                        "Insufficient " + resource + " (the scheduler's own check)",
                        "more " + resource + " left on a node",
                        "the pod asks "
                            + request.getOrDefault(resource, BigDecimal.ONE).toPlainString()
                            + ", "
                            + node
                            + " has "
                            + book.free(resource).max(BigDecimal.ZERO).toPlainString()
                            + " left; the scheduler does not ask vNPU about it"));
              }
            });
    return refused;
  }

  private static String text(Answer answer) {
    return switch (answer.state()) {
      case "no-vnpu" ->
          "Pod "
              + answer.pod()
              + " asks for no vNPU: vNPU has no say in where it runs"
              + (answer.node() == null ? "" : " (it runs on " + answer.node() + ")")
              + ".\n";
      case "placed" -> placedText(answer);
      case "invalid" ->
          "Pod "
              + answer.pod()
              + " breaks the vNPU contract, so no node takes it: "
              + answer.unschedulable()
              + "\n(vnpu validate-pod lists every rule it breaks)\n";
      default -> pendingText(answer);
    };
  }

  private static String placedText(Answer answer) {
    StringBuilder out =
        new StringBuilder(
            "Pod "
                + answer.pod()
                + " is placed on node "
                + answer.node()
                + " (phase "
                + answer.phase()
                + ") with these vNPUs:\n\n");
    boolean measured = answer.vnpus().stream().anyMatch(v -> v.measuredShare() != null);
    TextTable table =
        measured
            ? new TextTable("CONTAINER", "CHIP", "TYPE", "SLICE", "MEASURED AI CORE")
            : new TextTable("CONTAINER", "CHIP", "TYPE", "SLICE");
    for (Vnpu vnpu : answer.vnpus()) {
      List<Object> cells =
          new ArrayList<>(List.of(vnpu.container(), vnpu.chip(), vnpu.type(), vnpu.slice()));
      if (measured) {
        cells.add(
            vnpu.measuredShare() == null
                ? "-"
                : String.format("%.0f %%", 100 * vnpu.measuredShare()));
      }
      table.row(cells.toArray());
    }
    return out.append(table.render("  ")).toString();
  }

  private static String pendingText(Answer answer) {
    StringBuilder out = new StringBuilder("Pod " + answer.pod() + " is not placed");
    List<String> fitting =
        answer.nodes().stream().filter(NodeAnswer::fits).map(NodeAnswer::node).toList();
    if (answer.nodes().isEmpty()) {
      return out.append(": the cluster has no node.\n").toString();
    } else if (answer.unschedulable() != null) {
      out.append(": ").append(answer.unschedulable()).append(".\n\n");
    } else if (fitting.isEmpty()) {
      out.append(
          ": its scheduler's own resource check refuses every node, before vNPU is asked.\n\n");
    } else {
      return out.append(
              ", but vNPU does not hold it back: its vNPUs fit on "
                  + String.join(", ", fitting)
                  + ". What it asks besides (CPU, memory, taints, affinity) is its scheduler's:"
                  + " kubectl describe pod -n "
                  + answer.pod().replace("/", " ")
                  + ".\n")
          .toString();
    }
    TextTable table = new TextTable("NODE", "REFUSES BECAUSE", "WHAT WOULD CHANGE THAT");
    Map<String, List<String>> byNeed = new LinkedHashMap<>();
    for (NodeAnswer node : answer.nodes()) {
      table.row(node.node(), node.refusal(), node.change() == null ? "-" : node.change());
      if (node.needed() != null) {
        byNeed.computeIfAbsent(node.needed(), n -> new ArrayList<>()).add(node.node());
      }
    }
    out.append(table.render("  "));
    if (!byNeed.isEmpty()) {
      out.append("\nIt needs one of these, which no node offers now:\n");
      byNeed.forEach(
          (need, nodes) ->
              out.append("  - ")
                  .append(need)
                  .append(" (see ")
                  .append(String.join(", ", nodes))
                  .append(")\n"));
    }
    return out.toString();
  }
}
