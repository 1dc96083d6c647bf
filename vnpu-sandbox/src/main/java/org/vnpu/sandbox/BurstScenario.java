package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.api.SplitMode;

/**
 * Many pods at once, as when a Deployment scales by hundreds of replicas (issue 19): every pod is
 * created in one go and the sandbox's scheduler and nodes work them off. It measures how fast they
 * bind, how often a node lock turned a pod away, how many chips they ended on against the same pods
 * placed one at a time with nothing in flight, and whether every container was handed out the
 * allocation its pod's annotation names.
 */
public final class BurstScenario {

  /** What the pods ask for. */
  public enum Shapes {
    /** Replicas of one Deployment: one vNPU of 5 % AI Core and 4 GiB each. */
    DEPLOYMENT,
    /** A seeded mix of five sizes, from memory-only 2 GiB to 20 % and 8 GiB. */
    MIX
  }

  /**
   * What a burst came to.
   *
   * @param pods pods created
   * @param bound pods bound and admitted at the end
   * @param seconds from the first creation to the last admission (or the timeout)
   * @param podsPerSecond bound pods per second
   * @param lockRefusals nodes turned away for another pod's lock, at filter and at reservation
   * @param chipsUsed chips holding at least one of the pods at the end
   * @param chipsUsedSequential the same for the pods placed one at a time; null when not run
   * @param mismatchedHandouts containers handed out another allocation than their pod's annotation,
   *     once every hand-out between interchangeable pods was settled
   * @param settleSeconds from the last admission until no node had a hand-out left to settle
   * @param time where the burst's time went
   */
  public record Report(
      int pods,
      int bound,
      double seconds,
      double podsPerSecond,
      long lockRefusals,
      int chipsUsed,
      Integer chipsUsedSequential,
      int mismatchedHandouts,
      double settleSeconds,
      TimeSpent time) {

    /** This report with the sequential run's chip count. */
    public Report withSequential(int chips) {
      return new Report(
          pods,
          bound,
          seconds,
          podsPerSecond,
          lockRefusals,
          chipsUsed,
          chips,
          mismatchedHandouts,
          settleSeconds,
          time);
    }
  }

  /**
   * Seconds spent during a burst, summed over the calls (they overlap across threads).
   *
   * @param placing the schedulers placing pods one after the other: their cycles, calls to the
   *     extender included
   * @param binding the schedulers' bindings, which run apart from their cycles
   * @param extender the extender answering, by verb (its own {@code /metrics})
   * @param allocate the device plugins answering the kubelets' Allocate calls, API writes included
   */
  public record TimeSpent(
      double placing, double binding, Map<String, Double> extender, double allocate) {}

  /** One measured run: pods bound and admitted, and the wall time it took. */
  private record Run(int bound, double seconds) {}

  private static final Pattern LOCKED =
      Pattern.compile("(?m)^vnpu_scheduler_rejections_total\\{reason=\"locked\"} (\\S+)$");
  private static final Pattern REFUSED =
      Pattern.compile("(?m)^vnpu_scheduler_lock_refusals_total (\\S+)$");
  private static final Pattern VERB_SECONDS =
      Pattern.compile(
          "(?m)^vnpu_scheduler_request_duration_seconds_sum\\{[^}]*verb=\"([^\"]+)\"[^}]*} (\\S+)$");

  /** How long the hand-outs between interchangeable pods may take to settle after a burst. */
  private static final Duration SETTLE = Duration.ofSeconds(30);

  /** How often the pods are read: often enough to time a burst, rarely enough not to load it. */
  private static final Duration POLL = Duration.ofMillis(250);

  /** A run has settled when no pod bound for this long and every pod left is unschedulable. */
  private static final Duration STALL = Duration.ofSeconds(10);

  private final Sandbox sandbox;
  private final KubernetesClient client;
  private final Consumer<String> progress;
  private final Duration timeout;
  private final HttpClient http = HttpClient.newHttpClient();
  private final AllocationAudit audit;

  /**
   * @param progress receives a line now and then while pods bind
   * @param timeout how long a run may take before it is reported as it stands
   */
  public BurstScenario(Sandbox sandbox, Consumer<String> progress, Duration timeout) {
    this.sandbox = sandbox;
    this.client = sandbox.client();
    this.audit = new AllocationAudit(sandbox, client);
    this.progress = progress;
    this.timeout = timeout;
  }

  /** {@code count} nodes of 8 soft 910B3 chips, as an Atlas 800I A2. */
  public static List<NodeSpec> nodes(int count) {
    return IntStream.range(0, count)
        .mapToObj(
            i ->
                NodeSpec.uniform(
                    String.format("burst-%03d", i),
                    "Atlas 800I A2, 8x 910B3",
                    SplitMode.SOFT,
                    "910B3",
                    8))
        .toList();
  }

  /** {@code count} pods of {@code shapes}, placed by {@code policy} (node and chip). */
  public static List<Pod> pods(int count, Shapes shapes, PlacementPolicy policy, long seed) {
    int[][] sizes = {{5, 4}, {10, 6}, {20, 8}, {2, 2}, {0, 2}}; // cores, GiB
    Random random = new Random(seed);
    Map<String, String> placement =
        Map.of(
            AnnotationKeys.NODE_SCHEDULER_POLICY, policy.wireName(),
            AnnotationKeys.DEVICE_SCHEDULER_POLICY, policy.wireName());
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int[] size = shapes == Shapes.DEPLOYMENT ? sizes[0] : sizes[random.nextInt(sizes.length)];
      pods.add(
          DemoPods.inference(
              String.format("burst-%05d", i), size[0], size[1], null, placement, Map.of()));
    }
    return pods;
  }

  /** Creates every pod at once and waits until each is bound and admitted. */
  public Report burst(List<Pod> pods) throws IOException, InterruptedException {
    long refusedBefore = lockRefusals();
    long started = System.nanoTime();
    pods.forEach(this::create);
    Run run = await(pods, started);
    double settleSeconds = awaitSettled();
    String metrics = metrics();
    Map<String, Double> verbs = new TreeMap<>();
    Matcher matcher = VERB_SECONDS.matcher(metrics);
    while (matcher.find()) {
      verbs.put(matcher.group(1), Double.parseDouble(matcher.group(2)));
    }
    return new Report(
        pods.size(),
        run.bound(),
        run.seconds(),
        run.seconds() == 0 ? 0 : run.bound() / run.seconds(),
        lockRefusals() - refusedBefore,
        audit.chipsUsed(),
        null,
        mismatchedHandouts(),
        settleSeconds,
        new TimeSpent(
            sandbox.placingSeconds(),
            sandbox.bindingSeconds(),
            verbs,
            sandbox.nodes().stream().mapToDouble(SandboxNode::allocateSeconds).sum()));
  }

  /**
   * Waits until no node has a hand-out between interchangeable pods left to settle, at most {@link
   * #SETTLE}; answers the seconds it waited.
   */
  private double awaitSettled() throws InterruptedException {
    long started = System.nanoTime();
    while (System.nanoTime() - started < SETTLE.toNanos()
        && sandbox.nodes().stream().anyMatch(node -> !node.locks().handouts().isEmpty())) {
      Thread.sleep(POLL.toMillis());
    }
    return (System.nanoTime() - started) / 1e9;
  }

  /**
   * Creates the pods one after the other, each once the one before is admitted, and answers how
   * many chips they hold at the end: the placement with nothing in flight.
   */
  public int sequential(List<Pod> pods) throws InterruptedException {
    long started = System.nanoTime();
    for (int i = 0; i < pods.size(); i++) {
      create(pods.get(i));
      await(pods.subList(i, i + 1), System.nanoTime());
      if ((i + 1) % 50 == 0) {
        progress.accept(
            String.format(
                "      one at a time: %d of %d placed, %.0f s",
                i + 1, pods.size(), (System.nanoTime() - started) / 1e9));
      }
    }
    return audit.chipsUsed();
  }

  private void create(Pod pod) {
    client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
  }

  /**
   * Waits until every pod is bound and Running; or until none bound for {@link #STALL} and every
   * pod left is marked unschedulable (the cluster is full); or the timeout.
   */
  private Run await(List<Pod> pods, long started) throws InterruptedException {
    Set<String> names =
        pods.stream().map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
    String namespace = pods.get(0).getMetadata().getNamespace();
    long deadline = started + timeout.toNanos();
    long reported = System.nanoTime();
    long progressed = System.nanoTime();
    int bound = 0;
    while (true) {
      List<Pod> current;
      try {
        current =
            client.pods().inNamespace(namespace).list().getItems().stream()
                .filter(p -> names.contains(p.getMetadata().getName()))
                .toList();
      } catch (KubernetesClientException e) {
        // The API server is busy with the burst itself: read again at the next poll, until the
        // timeout, which reports what the last answer showed.
        progress.accept(
            "      the API server did not answer a list of the pods: " + e.getMessage());
        if (System.nanoTime() > deadline) {
          return new Run(bound, (System.nanoTime() - started) / 1e9);
        }
        Thread.sleep(POLL.toMillis());
        continue;
      }
      int boundNow = (int) current.stream().filter(BurstScenario::admitted).count();
      long now = System.nanoTime();
      if (boundNow > bound) {
        bound = boundNow;
        progressed = now;
      }
      boolean stalled =
          now - progressed > STALL.toNanos()
              && current.stream().allMatch(p -> admitted(p) || unschedulable(p));
      if (bound == names.size() || stalled || now > deadline) {
        return new Run(bound, (now - started) / 1e9);
      }
      if (names.size() > 1 && now - reported > 5_000_000_000L) {
        progress.accept(
            String.format(
                "      %d of %d bound and admitted, %.0f s",
                bound, names.size(), (now - started) / 1e9));
        reported = now;
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  private static boolean admitted(Pod pod) {
    return pod.getSpec().getNodeName() != null
        && pod.getStatus() != null
        && "Running".equals(pod.getStatus().getPhase());
  }

  private static boolean unschedulable(Pod pod) {
    return pod.getStatus() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("PodScheduled") && c.getStatus().equals("False"));
  }

  /**
   * Containers whose hand-out is not the allocation their pod's annotation names ({@link
   * AllocationAudit}).
   */
  int mismatchedHandouts() throws IOException {
    return audit.mismatchedHandouts();
  }

  /** Lock refusals so far, from the scheduler's {@code /metrics}. */
  private long lockRefusals() throws IOException, InterruptedException {
    String metrics = metrics();
    return (long) (value(LOCKED, metrics) + value(REFUSED, metrics));
  }

  private String metrics() throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create(sandbox.schedulerUrl() + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static double value(Pattern metric, String metrics) {
    Matcher matcher = metric.matcher(metrics);
    return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
  }
}
