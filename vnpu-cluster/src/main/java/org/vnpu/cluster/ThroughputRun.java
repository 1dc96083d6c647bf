package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.kube.Informers;
import org.vnpu.scheduler.SchedulingException;
import org.vnpu.scheduler.SequentialPlan;

/**
 * Runs one {@link ThroughputRow} on the real control plane: creates its pods at once in a namespace
 * of its own, times each binding as a watch delivers it, reads what the row cost (the extender's
 * histogram and counters, the audit log from where it stood, each process's CPU), then deletes the
 * pods so that the next row finds the nodes empty.
 */
final class ThroughputRun {

  private static final int CREATORS = 8;
  private static final String EXTENDER_USER =
      "system:serviceaccount:" + VnpuRelease.NAMESPACE + ":" + VnpuRelease.NAME + "-scheduler";
  private static final Pattern LOCKED =
      Pattern.compile("(?m)^vnpu_scheduler_rejections_total\\{reason=\"locked\"} (\\S+)$");
  private static final Pattern REFUSED =
      Pattern.compile("(?m)^vnpu_scheduler_lock_refusals_total (\\S+)$");

  /** The node lifecycle controller's taints of a node whose heartbeat it lost (v1.34.1). */
  private static final List<String> UNREACHABLE_TAINTS =
      List.of("node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready");

  private final KubernetesClient client;
  private final ControlPlane plane;
  private final String extenderUrl;
  private final Consumer<String> progress;
  private final Duration stall;
  private final HttpClient http = HttpClient.newHttpClient();
  private final PayloadCodec codec = new PayloadCodec();

  /**
   * @param extenderUrl the vNPU scheduler's plain URL ({@code /metrics})
   * @param stall a row ends, broken, when no pod bound for this long
   */
  ThroughputRun(
      KubernetesClient client,
      ControlPlane plane,
      String extenderUrl,
      Consumer<String> progress,
      Duration stall) {
    this.client = client;
    this.plane = plane;
    this.extenderUrl = extenderUrl;
    this.progress = progress;
    this.stall = stall;
  }

  RowFigures run(ThroughputRow row, int count, long seed) throws IOException, InterruptedException {
    String namespace = "bench-" + row.id();
    return withPods(
        row, namespace, count, seed, (pods, boundAt) -> measure(row, namespace, pods, boundAt));
  }

  /**
   * Places {@code count} pods of the row in a namespace of their own and removes them, measuring
   * nothing; a pod left unbound fails the benchmark, as it would the row.
   */
  void warmUp(ThroughputRow row, int count, long seed) throws IOException, InterruptedException {
    String problem =
        withPods(
            row,
            "warm-up-" + row.id(),
            count,
            seed,
            (pods, boundAt) -> place(row, pods, boundAt, System.nanoTime()));
    if (problem != null) {
      throw new IllegalStateException("row " + row.id() + " did not warm up: " + problem);
    }
  }

  /** What is done with a row's pods while a watch records when each was bound. */
  @FunctionalInterface
  private interface WithPods<T> {
    T apply(List<Pod> pods, Map<String, Long> boundAt) throws IOException, InterruptedException;
  }

  /**
   * Makes the namespace and the row's {@code count} pods (not yet created), watches their bindings
   * while {@code action} runs, then deletes them and the namespace.
   */
  private <T> T withPods(
      ThroughputRow row, String namespace, int count, long seed, WithPods<T> action)
      throws IOException, InterruptedException {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    Map<String, Long> boundAt = new ConcurrentHashMap<>();
    SharedIndexInformer<Pod> watch =
        client
            .pods()
            .inNamespace(namespace)
            .inform(
                Informers.handler(
                    pod -> {
                      if (pod.getSpec().getNodeName() != null) {
                        boundAt.putIfAbsent(pod.getMetadata().getName(), System.nanoTime());
                      }
                    },
                    pod -> {})); // a deleted pod keeps the time it was bound at
    try {
      return action.apply(row.pods(namespace, count, seed), boundAt);
    } finally {
      watch.close();
      clear(namespace);
    }
  }

  /** Creates the pods and waits until all are bound; the problem that stopped it, or null. */
  private String place(ThroughputRow row, List<Pod> pods, Map<String, Long> boundAt, long started)
      throws InterruptedException {
    String problem = create(pods);
    return problem != null ? problem : await(row, pods.size(), boundAt, started);
  }

  /** Places the pods, timing them and reading what the row cost from where each source stood. */
  private RowFigures measure(
      ThroughputRow row, String namespace, List<Pod> pods, Map<String, Long> boundAt)
      throws IOException, InterruptedException {
    String metricsBefore = metrics();
    Map<String, Double> cpuBefore = cpu();
    Path audit = plane.logs().resolve("audit.log");
    AuditLog.Position auditFrom = AuditLog.Position.of(audit);
    long started = System.nanoTime();
    String problem = place(row, pods, boundAt, started);
    long last = boundAt.values().stream().mapToLong(Long::longValue).max().orElse(started);
    double seconds = (problem == null ? last - started : System.nanoTime() - started) / 1e9;
    String metricsAfter = metrics();
    VerbLatencies verbs = VerbLatencies.read(metricsAfter).since(VerbLatencies.read(metricsBefore));
    return new RowFigures(
        row,
        pods.size(),
        boundAt.size(),
        seconds,
        verbs(verbs),
        AuditLog.requestsSince(audit, auditFrom, EXTENDER_USER),
        AuditLog.requestsSince(audit, auditFrom, row.schedulerUser()),
        since(cpuBefore, cpu()),
        (long) (lockRefusals(metricsAfter) - lockRefusals(metricsBefore)),
        row.extended() ? chipsUsed(namespace) : boundAt.size(),
        row.extended() ? sequential(namespace) : null,
        problem);
  }

  /** Creates every pod; the first failure, or null. */
  private String create(List<Pod> pods) throws InterruptedException {
    return eachPod(pods, "creating", pod -> client.pods().resource(pod).create());
  }

  /**
   * Runs {@code action} on every pod on {@value #CREATORS} threads, as many clients would; the
   * first failure, or null.
   */
  private static String eachPod(List<Pod> pods, String doing, Consumer<Pod> action)
      throws InterruptedException {
    AtomicReference<String> failure = new AtomicReference<>();
    ExecutorService threads = Executors.newFixedThreadPool(CREATORS);
    for (Pod pod : pods) {
      threads.execute(
          () -> {
            try {
              action.accept(pod);
            } catch (KubernetesClientException e) {
              failure.compareAndSet(
                  null, doing + " pod " + pod.getMetadata().getName() + ": " + e.getMessage());
            }
          });
    }
    threads.shutdown();
    threads.awaitTermination(1, TimeUnit.HOURS);
    return failure.get();
  }

  /** Waits until every pod is bound; a problem when none bound for {@link #stall}. */
  private String await(ThroughputRow row, int count, Map<String, Long> boundAt, long started)
      throws InterruptedException {
    int seen = 0;
    long progressed = System.nanoTime();
    long reported = progressed;
    while (boundAt.size() < count) {
      Thread.sleep(100);
      long now = System.nanoTime();
      if (boundAt.size() > seen) {
        seen = boundAt.size();
        progressed = now;
      }
      if (now - progressed > stall.toNanos()) {
        return (count - seen)
            + " of "
            + count
            + " pods were still unbound after "
            + stall.toSeconds()
            + " s without a binding"
            + unreachable();
      }
      if (now - reported > 5_000_000_000L) {
        progress.accept(
            String.format(
                "  %s: %d of %d bound, %.0f s", row.id(), seen, count, (now - started) / 1e9));
        reported = now;
      }
    }
    return null;
  }

  /**
   * How many nodes the node lifecycle controller tainted as unreachable or not ready, as a clause;
   * empty when none: such nodes take no pod, and the benchmark's heartbeat kept them alive.
   */
  private String unreachable() {
    long tainted =
        client.nodes().list().getItems().stream()
            .filter(
                node ->
                    node.getSpec().getTaints() != null
                        && node.getSpec().getTaints().stream()
                            .anyMatch(taint -> UNREACHABLE_TAINTS.contains(taint.getKey())))
            .count();
    return tainted == 0
        ? ""
        : "; "
            + tainted
            + " node(s) are tainted "
            + String.join(" or ", UNREACHABLE_TAINTS)
            + ": the nodes' heartbeat fell behind (see the longest Lease gap)";
  }

  /**
   * Deletes the namespace's pods at once (no kubelet would confirm them), one request each (a
   * collection's delete of thousands outlasts a client's request timeout), then the namespace.
   */
  private void clear(String namespace) throws InterruptedException {
    String failure =
        eachPod(
            client.pods().inNamespace(namespace).list().getItems(),
            "deleting",
            pod -> client.pods().resource(pod).withGracePeriod(0).delete());
    if (failure != null) {
      throw new IllegalStateException(failure + "; the next row would not find the nodes empty");
    }
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (!client.pods().inNamespace(namespace).list().getItems().isEmpty()
        && System.nanoTime() < deadline) {
      Thread.sleep(500);
    }
    client.namespaces().withName(namespace).delete();
  }

  /** Chips holding a vNPU of a bound pod of the namespace, by the pods' allocations. */
  private int chipsUsed(String namespace) {
    Set<String> chips = new HashSet<>();
    for (Pod pod : client.pods().inNamespace(namespace).list().getItems()) {
      Map<String, String> annotations = pod.getMetadata().getAnnotations();
      String value = annotations == null ? null : annotations.get(AnnotationKeys.ALLOCATION);
      if (pod.getSpec().getNodeName() == null || value == null) {
        continue;
      }
      for (ContainerAllocation container :
          codec.decodeAllocation(value).allocation().containers()) {
        for (VnpuAssignment vnpu : container.vnpus()) {
          chips.add(pod.getSpec().getNodeName() + "/" + vnpu.chipIndex());
        }
      }
    }
    return chips.size();
  }

  /** The chips the namespace's pods take placed one at a time, in name order, on the same nodes. */
  private int sequential(String namespace) {
    List<Pod> pods =
        client.pods().inNamespace(namespace).list().getItems().stream()
            .sorted(Comparator.comparing(pod -> pod.getMetadata().getName()))
            .toList();
    try {
      return SequentialPlan.place(client.nodes().list().getItems(), pods, ChipCatalog.builtIn())
          .chipsUsed();
    } catch (SchedulingException e) {
      throw new IllegalStateException("the row's pods do not read: " + e.getMessage(), e);
    }
  }

  /** The extender's verbs by name: its paths' last segment ({@code /volcano/predicate}). */
  private static Map<String, RowFigures.Verb> verbs(VerbLatencies latencies) {
    Map<String, RowFigures.Verb> verbs = new TreeMap<>();
    latencies
        .calls()
        .forEach(
            (verb, calls) ->
                verbs.put(
                    verb.substring(verb.lastIndexOf('/') + 1),
                    new RowFigures.Verb(
                        calls,
                        latencies.quantile(verb, 0.5) * 1000,
                        latencies.quantile(verb, 0.99) * 1000)));
    return verbs;
  }

  /** CPU seconds of every component and of this process so far. */
  private Map<String, Double> cpu() {
    Map<String, Double> seconds = new LinkedHashMap<>();
    for (Component component : plane.components()) {
      seconds.put(component.name(), ProcessCpu.seconds(component.pid()));
    }
    seconds.put("benchmark", ProcessCpu.seconds(ProcessHandle.current().pid()));
    return seconds;
  }

  private static Map<String, Double> since(Map<String, Double> before, Map<String, Double> after) {
    Map<String, Double> used = new LinkedHashMap<>();
    after.forEach((name, seconds) -> used.put(name, seconds - before.getOrDefault(name, 0.0)));
    return used;
  }

  private String metrics() throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create(extenderUrl + "/metrics"))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static double lockRefusals(String metrics) {
    return value(LOCKED, metrics) + value(REFUSED, metrics);
  }

  private static double value(Pattern metric, String metrics) {
    Matcher matcher = metric.matcher(metrics);
    return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
  }
}
