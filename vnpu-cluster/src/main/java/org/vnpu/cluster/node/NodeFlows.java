package org.vnpu.cluster.node;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.cluster.VnpuRelease;
import org.vnpu.handouts.NodeFiles;
import org.vnpu.sandbox.MetricSamples;

/**
 * The vNPU flows on the real node, once the chart runs there and Volcano calls the extender: vNPU
 * pods admitted by the real kubelet through the device plugin, their workload under the shim in
 * real containers, an init container before the app, a kubelet restart, a deleted pod's files, and
 * {@code vnpu doctor} in the device plugin's pod.
 */
final class NodeFlows {

  private static final Duration POD_READY = Duration.ofMinutes(3);
  private static final Duration CLEANUP = Duration.ofMinutes(1);
  private static final long EXEC_SECONDS = 120;
  private static final double SHARE_TOLERANCE = 0.05;

  private final KubernetesClient admin;
  private final RealNode node;
  private final NodePods pods;
  private final Checks checks;
  private final RealKubeletSide kubelet;
  private final ChartPods chart;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  NodeFlows(KubernetesClient admin, RealNode node, NodePods pods, ChartPods chart, Checks checks) {
    this.admin = admin;
    this.chart = chart;
    this.kubelet = new RealKubeletSide(admin, chart, node);
    this.node = node;
    this.pods = pods;
    this.checks = checks;
  }

  void run() throws IOException, InterruptedException {
    sharedAndWholeCardPodsRun();
    overQuotaRefusedInTheContainer();
    initContainerFirst();
    kubeletRestartKeepsAllocations();
    deletedPodsFilesGo();
    fixedSharesMeasured();
    doctorOnTheNode();
  }

  private void sharedAndWholeCardPodsRun() throws InterruptedException {
    pods.create("shared", NodePods.shared(30, 8), 4096);
    pods.create("whole", NodePods.wholeCard(), 1024);
    for (String name : List.of("shared", "whole")) {
      Pod pod = pods.await(name, "running", NodePods::running, POD_READY);
      String allocation = pod.getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION);
      checks.check(
          allocation != null && RealNodeScenario.NODE.equals(pod.getSpec().getNodeName()),
          "pod " + name + " runs on " + RealNodeScenario.NODE + ", allocated " + vnpus(allocation));
    }
    checks.await(
        "the shared pod's workload took its memory",
        POD_READY,
        () -> pods.log("shared").contains("taken"));
    checks.check(
        true,
        "the shared pod's workload runs under the shim over the fake runtime: "
            + firstLine(pods.log("shared")));
  }

  private void overQuotaRefusedInTheContainer() throws InterruptedException {
    pods.create("greedy", NodePods.shared(10, 2), 3072);
    Pod pod =
        pods.await("greedy", "terminated", p -> NodePods.terminated(p).isPresent(), POD_READY);
    int exit = NodePods.terminated(pod).orElseThrow().getExitCode();
    checks.check(
        exit == 3,
        "a model of 3 GiB against a 2 GiB quota is refused inside the real container (exit "
            + exit
            + "): "
            + firstLine(pods.log("greedy")));
    pods.delete("greedy");
  }

  private void initContainerFirst() throws InterruptedException {
    pods.createWithInit("staged", NodePods.shared(20, 4), 2048);
    Pod pod = pods.await("staged", "running", NodePods::running, POD_READY);
    ContainerStatus init = pod.getStatus().getInitContainerStatuses().get(0);
    checks.check(
        init.getState().getTerminated() != null
            && init.getState().getTerminated().getExitCode() == 0
            && pods.log("staged", "init").contains("taken"),
        "an init container used its vNPU and ended before the app container started: "
            + firstLine(pods.log("staged", "init")));
    pods.delete("staged");
  }

  private void kubeletRestartKeepsAllocations() throws IOException, InterruptedException {
    Pod before = admin.pods().inNamespace(NodePods.NAMESPACE).withName("shared").get();
    node.kubelet().restart(admin);
    checks.await(
        "the device plugin registered again with the restarted kubelet",
        POD_READY,
        () -> kubelet.devicePluginLog().contains(RealKubeletSide.REGISTERED_AGAIN));
    Pod after = pods.await("shared", "running again", NodePods::running, POD_READY);
    checks.check(
        after
                .getMetadata()
                .getAnnotations()
                .get(AnnotationKeys.ALLOCATION)
                .equals(before.getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION))
            && after.getStatus().getContainerStatuses().get(0).getRestartCount() == 0,
        "after a kubelet restart the device plugin registered again and the running pod kept its"
            + " container and allocation");
  }

  private void deletedPodsFilesGo() throws InterruptedException {
    String uid =
        admin
            .pods()
            .inNamespace(NodePods.NAMESPACE)
            .withName("shared")
            .get()
            .getMetadata()
            .getUid();
    NodeFiles files = new NodeFiles(node.directory().resolve("state"));
    checks.check(hasFiles(files, uid), "the shared pod has its shim files on the node");
    pods.delete("shared");
    checks.await("the deleted pod's files are removed", CLEANUP, () -> !hasFiles(files, uid));
    checks.check(true, "the deleted pod's shim files are removed from the node");
  }

  /**
   * Two fixed-share pods on the chip the whole-card pod left free: the exporter pod measures each
   * one's AI Core share from the shim's books, over 5 s of back-to-back kernels.
   */
  private void fixedSharesMeasured() throws IOException, InterruptedException {
    Map<String, Integer> shares = new TreeMap<>(Map.of("share-a", 30, "share-b", 60));
    for (Map.Entry<String, Integer> share : shares.entrySet()) {
      pods.create(
          pods.pod(share.getKey(), NodePods.shared(share.getValue(), 8), 1024)
              .editMetadata()
              .addToAnnotations(AnnotationKeys.AICORE_POLICY, "fixed-share")
              .endMetadata());
    }
    Set<Integer> chips = new TreeSet<>();
    for (String name : shares.keySet()) {
      Pod pod = pods.await(name, "running", NodePods::running, POD_READY);
      new PayloadCodec()
              .decodeAllocation(pod.getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION))
              .allocation()
              .containers()
              .stream()
              .flatMap(container -> container.vnpus().stream())
              .forEach(vnpu -> chips.add(vnpu.chipIndex()));
    }
    Pod exporterPod = chart.pod("exporter");
    String exporter =
        "http://"
            + exporterPod.getStatus().getPodIP()
            + ":"
            + exporterPod.getSpec().getContainers().get(0).getPorts().get(0).getContainerPort()
            + "/metrics";
    scrape(exporter);
    Thread.sleep(5000);
    Map<String, Double> measured = new TreeMap<>();
    for (MetricSamples.Sample sample :
        MetricSamples.of(scrape(exporter), "vnpu_container_aicore_share_ratio")) {
      measured.put(sample.labels().get("pod"), sample.value());
    }
    List<String> details = new ArrayList<>();
    boolean within = chips.size() == 1;
    for (Map.Entry<String, Integer> share : shares.entrySet()) {
      double got = measured.getOrDefault(share.getKey(), -1.0);
      within &= Math.abs(got - share.getValue() / 100.0) <= SHARE_TOLERANCE;
      details.add("%s %.1f %% (%d %%)".formatted(share.getKey(), got * 100, share.getValue()));
    }
    checks.check(
        within,
        "the exporter pod measured the fixed shares of two pods on chip "
            + chips
            + " within 5 points over 5 s: "
            + String.join(", ", details));
    shares.keySet().forEach(pods::delete);
  }

  private String scrape(String url) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(url + " answered " + response.statusCode());
    }
    return response.body();
  }

  private static boolean hasFiles(NodeFiles files, String uid) {
    try {
      return files.pods().stream().anyMatch(keyed -> keyed.pod().uid().equals(uid));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the node's pod files: " + e.getMessage(), e);
    }
  }

  private void doctorOnTheNode() throws InterruptedException {
    Pod plugin = chart.pod("device-plugin");
    List<String> command = new ArrayList<>(List.of("vnpu", "doctor"));
    List<String> arguments = plugin.getSpec().getContainers().get(0).getArgs();
    command.addAll(arguments.subList(1, arguments.size()));
    PodExec.Result doctor =
        PodExec.run(
            admin, VnpuRelease.NAMESPACE, plugin.getMetadata().getName(), "device-plugin", command);
    int exit = doctor.exit();
    String report = doctor.output();
    List<String> failed =
        report
            .lines()
            .map(String::strip)
            .filter(line -> line.matches("\\S+\\s+fail\\b.*"))
            .toList();
    checks.check(
        failed.size() == 1 && failed.get(0).startsWith("runtime-hook"),
        "vnpu doctor, run by kubectl exec in the device plugin's pod, passes every check but"
            + " runtime-hook (no Ascend Docker Runtime on this machine); exit "
            + exit
            + "\n"
            + report.strip().indent(6).stripTrailing());
  }

  /** The chips and shares of an allocation annotation, for the check's line. */
  private static String vnpus(String allocation) {
    if (allocation == null) {
      return "nothing";
    }
    return new PayloadCodec()
        .decodeAllocation(allocation).allocation().containers().stream()
            .flatMap(container -> container.vnpus().stream())
            .map(
                vnpu ->
                    "chip %d (%d MiB, %d %% AI Core%s)"
                        .formatted(
                            vnpu.chipIndex(),
                            vnpu.memoryMiB(),
                            vnpu.cores(),
                            vnpu.wholeCard() ? ", whole card" : ""))
            .collect(Collectors.joining(", "));
  }

  private static String firstLine(String log) {
    return log == null || log.isBlank() ? "(no output)" : log.lines().findFirst().orElse("");
  }
}
