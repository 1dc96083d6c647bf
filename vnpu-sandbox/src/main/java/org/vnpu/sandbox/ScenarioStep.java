package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.kube.PodPhases;

/**
 * One step of the demo's script: it submits pods, waits for the scheduler and the nodes, and adds
 * what it checked to the scenario's checks. The helpers every step uses (a pod's placement, its
 * phase and events, its container's log, an exporter's samples) are here.
 */
abstract class ScenarioStep {

  /** How long a step waits for a pod to be placed or refused. */
  static final Duration SETTLE = Duration.ofSeconds(90);

  /**
   * What every step shares: the sandbox, where progress lines go, and the scenario's checks, to
   * which each step adds its own.
   */
  record Context(ScenarioCluster sandbox, Consumer<String> progress, List<Scenario.Check> checks) {}

  /** Where a pod's vNPUs went. */
  record Placed(String node, List<VnpuAssignment> vnpus) {}

  /** One sample of an exposition: its labels and value. */
  final ScenarioCluster sandbox;

  final KubernetesClient client;
  final Consumer<String> progress;
  final List<Scenario.Check> checks;
  private final PayloadCodec codec = new PayloadCodec();
  private final HttpClient http = HttpClient.newHttpClient();

  ScenarioStep(Context context) {
    this.sandbox = context.sandbox();
    this.client = context.sandbox().client();
    this.progress = context.progress();
    this.checks = context.checks();
  }

  /** Runs the step; what it found is in the checks. */
  abstract void run() throws IOException, InterruptedException;

  /** Adds a check of the scenario. */
  void check(String promise, boolean held, String detail) {
    checks.add(new Scenario.Check(promise, held, detail));
  }

  /** Creates the pod, naming the scheduler that places the cluster's vNPU pods. */
  void create(Pod pod) {
    pod.getSpec().setSchedulerName(sandbox.schedulerName());
    client.pods().inNamespace(Scenario.NAMESPACE).resource(pod).create();
  }

  Pod get(String name) {
    return client.pods().inNamespace(Scenario.NAMESPACE).withName(name).get();
  }

  /** Waits until each pod runs (or ran) on a node, or the scheduler said why it does not fit. */
  void settle(List<String> names) throws InterruptedException {
    Instant deadline = Instant.now().plus(SETTLE);
    while (Instant.now().isBefore(deadline) && !names.stream().allMatch(this::settled)) {
      Thread.sleep(200);
    }
  }

  boolean settled(String name) {
    Pod pod = get(name);
    if (pod.getSpec().getNodeName() != null) {
      String phase = PodPhases.of(pod);
      return phase != null && !phase.equals("Pending");
    }
    return sandbox.unschedulable(pod).isPresent();
  }

  void awaitPhase(String name, String phase, Duration timeout) throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline) && !phase.equals(PodPhases.of(get(name)))) {
      Thread.sleep(200);
    }
  }

  Placed placed(String name) {
    Pod pod = get(name);
    String value =
        pod.getMetadata().getAnnotations() == null
            ? null
            : pod.getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION);
    if (pod.getSpec().getNodeName() == null || value == null) {
      return null;
    }
    List<VnpuAssignment> vnpus =
        codec.decodeAllocation(value).allocation().containers().stream()
            .map(ContainerAllocation::vnpus)
            .flatMap(List::stream)
            .toList();
    return new Placed(pod.getSpec().getNodeName(), vnpus);
  }

  String reason(String name) {
    Pod pod = get(name);
    Optional<String> unschedulable = sandbox.unschedulable(pod);
    if (pod.getSpec().getNodeName() == null && unschedulable.isPresent()) {
      return unschedulable.get();
    }
    return pod.getSpec().getNodeName() == null
        ? "not scheduled yet"
        : "bound without an allocation";
  }

  String describe(String name) {
    Placed placed = placed(name);
    if (placed == null) {
      return name + ": not placed — " + reason(name);
    }
    List<String> slices = new ArrayList<>();
    for (VnpuAssignment vnpu : placed.vnpus()) {
      slices.add("chip " + vnpu.chipIndex() + " " + vnpu.slice());
    }
    String chips =
        slices.size() > 2
            ? slices.size() + " chips, " + slices.get(0) + ", ..."
            : String.join(", ", slices);
    return name + ": " + placed.node() + ", " + chips + " (" + PodPhases.of(get(name)) + ")";
  }

  /** The messages of the pod's Events of this reason, oldest first. */
  List<String> events(String pod, String reason) {
    return client.v1().events().inNamespace(Scenario.NAMESPACE).list().getItems().stream()
        .filter(event -> pod.equals(event.getInvolvedObject().getName()))
        .filter(event -> reason.equals(event.getReason()))
        .sorted(Comparator.comparing(event -> String.valueOf(event.getLastTimestamp())))
        .map(Event::getMessage)
        .toList();
  }

  /** The container log of the pod {@code name}, or "(no log)". */
  String log(String name) throws IOException {
    Pod pod = get(name);
    Path log =
        sandbox
            .nodeDirectory(String.valueOf(pod.getSpec().getNodeName()))
            .resolve("pods")
            .resolve(Scenario.NAMESPACE)
            .resolve(name)
            .resolve("main")
            .resolve("log");
    return Files.exists(log) ? Files.readString(log).strip() : "(no log)";
  }

  String scrape(String url) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  static boolean running(Pod pod) {
    return "Running".equals(PodPhases.of(pod));
  }

  static String name(Pod pod) {
    return pod.getMetadata().getName();
  }

  static List<String> names(List<Pod> pods) {
    return pods.stream().map(ScenarioStep::name).toList();
  }

  /** E.g. {@code a2-infer 3, a2-train 2, mixed 1}. */
  static String byNode(List<Pod> pods) {
    Map<String, Integer> counts = new TreeMap<>();
    pods.forEach(pod -> counts.merge(String.valueOf(pod.getSpec().getNodeName()), 1, Integer::sum));
    List<String> parts = new ArrayList<>();
    counts.forEach((node, count) -> parts.add(node + " " + count));
    return String.join(", ", parts);
  }
}
