package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.kube.PodPhases;

/**
 * The demo's script, on a sandbox with {@link Sandbox#DEMO_NODES}: the example pods of
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

  /** The share pair: fixed AI Core percent by pod, both pinned to {@link #SHARED_CHIP}. */
  private static final Map<String, Integer> SHARES =
      new TreeMap<>(Map.of("share-a", 30, "share-b", 60));

  /** The chip the share pair is pinned to, by die ID. */
  static final String SHARED_CHIP = "SIM-mixed-1";

  private static final double SHARE_TOLERANCE = 0.05;

  private static final Duration SETTLE = Duration.ofSeconds(90);
  private static final Duration METRICS_CATCH_UP = Duration.ofSeconds(15);

  /** The ReplicaSet of shared pods the rebalancing step moves. */
  static final String SHARDS = "shards";

  /**
   * Replicas of {@link #SHARDS}: spread over the 910B3 nodes, they leave no node 8 free chips, and
   * every A2 node holds at least two of them.
   */
  private static final int SHARD_REPLICAS = 6;

  /** The pod the rebalancing step makes room for: every chip of one A2 node, as whole cards. */
  static final String WHOLE_CARDS = "whole-cards";

  private static final int WHOLE_CARD_COUNT = 8;

  /** How long the rebalancing step waits for the rebalancer and the pods it moved. */
  private static final Duration REBALANCED = Duration.ofSeconds(60);

  /** The chip the co-location step pins its online and offline pod to, by die ID. */
  static final String COLOCATED_CHIP = "SIM-a2-train-7";

  /** The chip of the preemption step: an offline pod holds it, an online one evicts it. */
  static final String PREEMPTED_CHIP = "SIM-a2-train-6";

  /** The offline pod's kernels, in microseconds: the longest an online request waits for. */
  private static final int OFFLINE_KERNEL_US = 8000;

  /** How long each co-location phase is measured. */
  private static final Duration PHASE = Duration.ofSeconds(4);

  /** Phases of the co-location step measured beside offline work, at most, until one holds. */
  private static final int MEASUREMENTS = 2;

  private static final Pattern LATENCY =
      Pattern.compile("latency requests=\\d+ p50_ms=\\S+ p99_ms=(\\S+)");

  private static final Pattern SAMPLE = Pattern.compile("^(\\w+)\\{([^}]*)\\} (\\S+)$");

  private static final Pattern LEDGER_PODS =
      Pattern.compile("^vnpu_scheduler_ledger_pods (\\S+)$", Pattern.MULTILINE);

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

  private record Placed(String node, List<VnpuAssignment> vnpus) {}

  private record Expectation(String promise, Predicate<Placed> holds) {
    private static final String ANYWHERE = "placed";

    static Expectation placed() {
      return new Expectation(ANYWHERE, placed -> placed != null);
    }

    /** Whether the pod may go anywhere, so that it can wait for those that may not. */
    boolean anywhere() {
      return promise.equals(ANYWHERE);
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
    return pod.startsWith(BURST_PREFIX)
        || pod.equals("over-quota")
        || pod.equals(HARD_SLICE)
        || EXAMPLES.containsKey(pod);
  }

  private static final String HARD_SLICE = "duo-slice";

  private static final String BURST_PREFIX = "infer-";

  /** The example files in the order they are submitted, with what each must get. */
  static final Map<String, Expectation> EXAMPLES = examples();

  private final ScenarioCluster sandbox;
  private final KubernetesClient client;
  private final Consumer<String> progress;
  private final int burst;
  private final long seed;
  private final PayloadCodec codec = new PayloadCodec();
  private final ChipCatalog catalog = ChipCatalog.builtIn();
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<Check> checks = new ArrayList<>();

  /**
   * @param progress receives a line as each step starts and ends
   * @param burst how many inference pods the burst submits
   * @param seed the burst's sizes are drawn with it
   */
  public Scenario(ScenarioCluster sandbox, Consumer<String> progress, int burst, long seed) {
    this.sandbox = sandbox;
    this.client = sandbox.client();
    this.progress = progress;
    this.burst = burst;
    this.seed = seed;
  }

  private static Map<String, Expectation> examples() {
    Map<String, Expectation> examples = new LinkedHashMap<>();
    examples.put(
        "multi-chip",
        new Expectation(
            "8 whole chips on one node",
            p ->
                p != null
                    && p.vnpus().size() == 8
                    && p.vnpus().stream().allMatch(VnpuAssignment::wholeCard)));
    examples.put(
        "whole-card",
        new Expectation("one whole chip", p -> p != null && p.vnpus().get(0).wholeCard()));
    examples.put(
        "die-pin",
        new Expectation(
            "the chip with the pinned die ID (mixed, chip 0)",
            p -> p != null && p.node().equals("mixed") && p.vnpus().get(0).chipIndex() == 0));
    examples.put(
        "type-pin",
        new Expectation("a 310P3", p -> p != null && p.vnpus().get(0).chipType().equals("310P3")));
    for (String name :
        List.of(
            "soft-slice",
            "memory-only",
            "fixed-share",
            "elastic",
            "best-effort",
            "binpack",
            "spread")) {
      examples.put(name, Expectation.placed());
    }
    examples.put(
        "hard-slice",
        new Expectation(
            "not placed: its 910B3 template needs a hard-mode 910B3 node, the sandbox has none",
            p -> p == null));
    return examples;
  }

  /** Runs the script; the sandbox keeps running afterwards. */
  public Report run() throws IOException, InterruptedException {
    List<String> all = new ArrayList<>();
    progress.accept(
        "[1/9] pods that accept only 310P3, then a pod that accepts any chip type: it leaves the"
            + " scarce 310P3 chips to them");
    scarceType();

    progress.accept(
        "[2/9] a pod of "
            + WHOLE_CARD_COUNT
            + " whole cards that fits nowhere until the rebalancer moves shared pods");
    rebalance();

    // The steps pinned to a chip come before the examples: where the unpinned examples land
    // depends on when the node locks before them are released, and they could take those chips.
    progress.accept(
        "[3/9] two pods sharing " + SHARED_CHIP + " at fixed AI Core shares of 30 % and 60 %");
    for (Map.Entry<String, Integer> share : SHARES.entrySet()) {
      create(
          inference(
              share.getKey(),
              share.getValue(),
              8,
              "fixed-share",
              Map.of(AnnotationKeys.USE_NPU_DIE_ID, SHARED_CHIP),
              Map.of()));
    }
    settle(List.copyOf(SHARES.keySet()));
    all.addAll(SHARES.keySet());
    measureShares();

    progress.accept(
        "[4/9] an online and an offline pod on "
            + COLOCATED_CHIP
            + ": online latency alone, then beside 8 ms offline kernels"
            + (sandbox.driver() == Sandbox.Driver.VOLCANO
                ? "; then an online pod preempts an offline one on " + PREEMPTED_CHIP
                : ""));
    colocate();
    all.addAll(List.of("online", "offline"));
    preempt().ifPresent(all::add);

    progress.accept("[5/9] the example pods of deploy/examples, and a hardware slice of a 310P3");
    List<String> examples = new ArrayList<>(EXAMPLES.keySet());
    // Those that must land on particular chips are settled before the others are submitted: in
    // one batch, which pods a scheduling cycle takes first depends on node locks held a moment
    // earlier, and an unpinned pod could take the only chips a pinned one fits on.
    List<String> particular =
        examples.stream().filter(name -> !EXAMPLES.get(name).anywhere()).toList();
    for (String name : particular) {
      create(example(name));
    }
    create(inference(HARD_SLICE, 25, 6, null, Map.of(AnnotationKeys.MODE, "hard"), Map.of()));
    settle(particular);
    settle(List.of(HARD_SLICE));
    List<String> anywhere =
        examples.stream().filter(name -> EXAMPLES.get(name).anywhere()).toList();
    for (String name : anywhere) {
      create(example(name));
    }
    settle(anywhere);
    Placed slice = placed(HARD_SLICE);
    progress.accept("      " + describe(HARD_SLICE));
    checks.add(
        new Check(
            "duo-slice: a hardware template on the 310P3 node in hard mode",
            slice != null
                && slice.node().equals("duo-hard")
                && slice.vnpus().get(0).template() != null,
            describe(HARD_SLICE)));
    all.add(HARD_SLICE);
    for (String name : examples) {
      Expectation expectation = EXAMPLES.get(name);
      Placed placed = placed(name);
      progress.accept("      " + describe(name));
      checks.add(
          new Check(
              "example " + name + ": " + expectation.promise(),
              expectation.holds().test(placed),
              describe(name)));
    }
    all.addAll(examples);

    progress.accept("[6/9] a pod with a 4 GiB quota whose model needs 6 GiB");
    create(
        inference("over-quota", 20, 4, "elastic", Map.of(), Map.of("WORKLOAD_MEMORY_MIB", "6144")));
    settle(List.of("over-quota"));
    awaitPhase("over-quota", "Failed", Duration.ofSeconds(20));
    checkQuota();
    all.add("over-quota");

    // Before the burst: every workload process the sandbox runs takes host CPU (the shims' waits
    // for their chips' tokens), and beside the burst's two dozen the extender's answers to the DRA
    // scheduler timed out on two cores, leaving the claims unranked.
    if (!sandbox.draNodes().isEmpty()) {
      progress.accept(
          "[7/9] DRA: three quarter-chip claims on the DRA nodes, ranked by the extender, each"
              + " prepared by the DRA driver and run under the shim");
      claims();
    }

    progress.accept("[8/9] a burst of " + burst + " inference pods");
    Random random = new Random(seed);
    int[] cores = {10, 20, 25, 30, 40};
    int[] memory = {2, 4, 8, 12};
    List<String> burstPods = new ArrayList<>();
    for (int i = 1; i <= burst; i++) {
      String name = String.format(BURST_PREFIX + "%02d", i);
      create(
          inference(
              name,
              cores[random.nextInt(cores.length)],
              memory[random.nextInt(memory.length)],
              "elastic",
              Map.of(),
              Map.of()));
      burstPods.add(name);
    }
    settle(burstPods);
    long bound = burstPods.stream().filter(name -> placed(name) != null).count();
    progress.accept("      " + bound + " of " + burst + " placed");
    all.addAll(burstPods);

    progress.accept("[9/9] reading every node's exporter");
    checkMetrics(all);
    List<Row> rows = new ArrayList<>();
    List<Unfit> unfit = new ArrayList<>();
    for (String name : all) {
      Placed placed = placed(name);
      if (placed == null) {
        unfit.add(new Unfit(name, reason(name)));
      } else {
        placed.vnpus().forEach(vnpu -> rows.add(row(name, placed.node(), vnpu)));
      }
    }
    checkNoOvercommit(all);
    return new Report(rows, unfit, compare(all), List.copyOf(checks));
  }

  // ---- DRA ----

  /**
   * The DRA step alone ({@link #claims}), for a cluster whose NPU nodes all offer their chips
   * through DRA: the chart with {@code dra.enabled} deploys the DRA driver instead of the device
   * plugin, and its kube-scheduler profile serves claims only.
   */
  public List<Check> runClaims() throws IOException, InterruptedException {
    claims();
    return List.copyOf(checks);
  }

  /**
   * Claims end to end (docs/dra.md, "Placement"): two pods of the spread policy, then one of
   * binpack, each with a quarter-chip claim from a template. The extender ranks the emptier DRA
   * node for the second, kube-scheduler's allocator takes the first free quarter in the driver's
   * chip-by-chip order for the third, and the DRA kubelet prepares each claim and starts the
   * container with its CDI devices under the shim, whose quota is the slice's memory.
   */
  private void claims() throws IOException, InterruptedException {
    client.resource(DraScenario.template()).create();
    Map<String, String> policies = new LinkedHashMap<>();
    policies.put("dra-first", "spread");
    policies.put("dra-second", "spread");
    policies.put("dra-third", "binpack");
    Map<String, DraScenario.Placed> placed = new LinkedHashMap<>();
    for (Map.Entry<String, String> pod : policies.entrySet()) {
      client.resource(DraScenario.pod(pod.getKey(), pod.getValue())).create();
      Instant deadline = Instant.now().plus(SETTLE);
      while (Instant.now().isBefore(deadline)
          && (DraScenario.device(client, pod.getKey()) == null
              || "Pending".equals(PodPhases.of(get(pod.getKey()))))) {
        Thread.sleep(200);
      }
      DraScenario.Placed device = DraScenario.device(client, pod.getKey());
      placed.put(pod.getKey(), device);
      progress.accept(
          "      "
              + pod.getKey()
              + " ("
              + pod.getValue()
              + "): "
              + (device == null
                  ? "not allocated: " + reason(pod.getKey())
                  : device.node()
                      + " "
                      + device.device()
                      + ", "
                      + PodPhases.of(get(pod.getKey()))));
    }
    DraScenario.Placed first = placed.get("dra-first");
    DraScenario.Placed second = placed.get("dra-second");
    DraScenario.Placed third = placed.get("dra-third");
    checks.add(
        new Check(
            "dra: a spread claim goes to the emptier DRA node (the extender ranks it)",
            first != null && second != null && !first.node().equals(second.node()),
            first + " and " + second));
    // Both nodes hold one quarter now: binpack ranks them alike, and kube-scheduler takes either
    // (selectHost samples among the best scores); on it, the allocator takes the used chip first.
    checks.add(
        new Check(
            "dra: a binpack claim goes beside one of them, on its chip (the driver's device order)",
            third != null
                && Stream.of(first, second)
                    .filter(Objects::nonNull)
                    .anyMatch(
                        claim -> claim.node().equals(third.node()) && claim.chip() == third.chip()),
            first + ", " + second + " and " + third));
    String log = first == null ? "(not placed)" : log("dra-first");
    checks.add(
        new Check(
            "dra: the claim's container runs under the shim with the quarter's 16 GiB",
            log.contains("of 16384 MiB"),
            log));
  }

  // ---- rebalancing ----

  /**
   * The rebalancer at work (docs/rebalancing.md), on the empty cluster: the ReplicaSet {@link
   * #SHARDS} spreads small offline shares over the 910B3 nodes, so that no node has {@value
   * #WHOLE_CARD_COUNT} free chips for {@link #WHOLE_CARDS}. The sandbox's rebalancer ({@link
   * Sandbox#DEMO_REBALANCING}) finds the fewest moves, holds the places, and evicts; the ReplicaSet
   * makes new pods, which go to the held places, and the pod of whole cards runs. All of it is
   * deleted afterwards, so that the steps after it start from an empty cluster.
   */
  private void rebalance() throws IOException, InterruptedException {
    ReplicaSet spread = shards();
    spread.getSpec().getTemplate().getSpec().setSchedulerName(sandbox.schedulerName());
    ReplicaSet shards =
        client.apps().replicaSets().inNamespace(NAMESPACE).resource(spread).create();
    List<Pod> replicas = awaitShards(shards, pods -> pods.stream().allMatch(Scenario::running));
    progress.accept(
        "      "
            + replicas.size()
            + " pods of ReplicaSet "
            + SHARDS
            + " (spread): "
            + byNode(replicas));
    create(wholeCards());
    Instant deadline = Instant.now().plus(SETTLE);
    while (Instant.now().isBefore(deadline) && !settled(WHOLE_CARDS)) {
      Thread.sleep(200);
    }
    boolean refused = placed(WHOLE_CARDS) == null;
    progress.accept("      " + describe(WHOLE_CARDS));
    awaitPhase(WHOLE_CARDS, "Running", REBALANCED);
    List<Pod> after =
        awaitShards(
            shards,
            pods ->
                pods.stream().allMatch(Scenario::running)
                    && pods.stream()
                        .map(Scenario::name)
                        .anyMatch(name -> !names(replicas).contains(name)));
    List<String> plan = events(WHOLE_CARDS, "VnpuRebalancing");
    plan.forEach(message -> progress.accept("      the rebalancer's plan: " + message));
    List<String> moved = new ArrayList<>();
    for (Pod replica : replicas) {
      for (String message : events(name(replica), "VnpuRebalanced")) {
        moved.add(name(replica));
        progress.accept("      " + name(replica) + ": " + message);
      }
    }
    progress.accept("      " + describe(WHOLE_CARDS));
    progress.accept("      the ReplicaSet's pods now: " + byNode(after));
    Placed whole = placed(WHOLE_CARDS);
    checks.add(
        new Check(
            "rebalancing: "
                + WHOLE_CARDS
                + " fits nowhere until 2 or 3 shared pods move, then runs on "
                + WHOLE_CARD_COUNT
                + " whole chips of one node",
            refused
                && moved.size() >= 2
                && moved.size() <= 3
                && whole != null
                && whole.vnpus().size() == WHOLE_CARD_COUNT
                && whole.vnpus().stream().allMatch(VnpuAssignment::wholeCard)
                && "Running".equals(PodPhases.of(get(WHOLE_CARDS))),
            moved.size() + " moved (" + String.join(", ", moved) + "); " + describe(WHOLE_CARDS)));
    checks.add(
        new Check(
            "rebalancing: every pod of ReplicaSet " + SHARDS + " runs again",
            after.size() == SHARD_REPLICAS && after.stream().allMatch(Scenario::running),
            byNode(after)));
    // Scaled to none first: a round of the ReplicaSet controller that began before may still make
    // a pod, which the next loop deletes.
    client
        .apps()
        .replicaSets()
        .inNamespace(NAMESPACE)
        .withName(SHARDS)
        .edit(set -> new ReplicaSetBuilder(set).editSpec().withReplicas(0).endSpec().build());
    List<Pod> left = shardPods(shards);
    while (!left.isEmpty()) {
      for (Pod pod : left) {
        client.pods().inNamespace(NAMESPACE).withName(name(pod)).delete();
      }
      Thread.sleep(500);
      left = shardPods(shards);
    }
    client.apps().replicaSets().inNamespace(NAMESPACE).withName(SHARDS).delete();
    client.pods().inNamespace(NAMESPACE).withName(WHOLE_CARDS).delete();
    checks.add(
        new Check(
            "rebalancing: the cluster is empty again for the next steps",
            ledgerEmptied(),
            "vnpu_scheduler_ledger_pods"));
  }

  /**
   * The ReplicaSet: small offline shares of 910B3 chips, spread; movable, as they are offline and a
   * controller owns them.
   */
  private static ReplicaSet shards() {
    Pod template =
        inference(
            SHARDS,
            20,
            8,
            "elastic",
            Map.of(
                AnnotationKeys.NODE_SCHEDULER_POLICY, "spread",
                AnnotationKeys.DEVICE_SCHEDULER_POLICY, "spread",
                AnnotationKeys.USE_NPU_TYPE, "910B3",
                AnnotationKeys.PRIORITY, "offline"),
            Map.of());
    return replicaSet(SHARDS, SHARD_REPLICAS, template);
  }

  /**
   * A ReplicaSet of {@code replicas} pods like {@code template}, labelled and selected by {@code
   * app: name}.
   */
  static ReplicaSet replicaSet(String name, int replicas, Pod template) {
    return new ReplicaSetBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector()
        .withMatchLabels(Map.of("app", name))
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Map.of("app", name))
        .withAnnotations(template.getMetadata().getAnnotations())
        .endMetadata()
        .withSpec(template.getSpec())
        .endTemplate()
        .endSpec()
        .build();
  }

  private static Pod wholeCards() {
    return new PodBuilder()
        .withNewMetadata()
        .withName(WHOLE_CARDS)
        .withNamespace(NAMESPACE)
        .withAnnotations(Map.of(AnnotationKeys.USE_NPU_TYPE, "910B3"))
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("volcano")
        .addNewContainer()
        .withName("main")
        .withImage("training:1")
        .withNewResources()
        .addToLimits(ResourceNames.VNPU_NUMBER, new Quantity(Integer.toString(WHOLE_CARD_COUNT)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** The set's active pods once {@code ready} holds of them and there are as many as it wants. */
  private List<Pod> awaitShards(ReplicaSet set, Predicate<List<Pod>> ready)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(REBALANCED);
    List<Pod> pods = shardPods(set);
    while (Instant.now().isBefore(deadline)
        && !(pods.size() == SHARD_REPLICAS && ready.test(pods))) {
      Thread.sleep(200);
      pods = shardPods(set);
    }
    return pods;
  }

  private List<Pod> shardPods(ReplicaSet set) {
    return client.pods().inNamespace(NAMESPACE).withLabel("app", SHARDS).list().getItems().stream()
        .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
        .filter(
            pod ->
                pod.getMetadata().getOwnerReferences().stream()
                    .anyMatch(owner -> owner.getUid().equals(set.getMetadata().getUid())))
        .toList();
  }

  private static boolean running(Pod pod) {
    return "Running".equals(PodPhases.of(pod));
  }

  private static String name(Pod pod) {
    return pod.getMetadata().getName();
  }

  private static List<String> names(List<Pod> pods) {
    return pods.stream().map(Scenario::name).toList();
  }

  /** E.g. {@code a2-infer 3, a2-train 2, mixed 1}. */
  private static String byNode(List<Pod> pods) {
    Map<String, Integer> counts = new TreeMap<>();
    pods.forEach(pod -> counts.merge(String.valueOf(pod.getSpec().getNodeName()), 1, Integer::sum));
    List<String> parts = new ArrayList<>();
    counts.forEach((node, count) -> parts.add(node + " " + count));
    return String.join(", ", parts);
  }

  /**
   * Two pods that accept only 310P3 chips, then a fragmentation-aware pod that accepts any type,
   * then a third 310P3-only pod: the scheduler has seen 310P3 sought by pods that can go nowhere
   * else (the cluster has 6 of them beside 18 910B3), so the flexible pod takes a 910B3 chip and
   * its event says which type it left (ADR 0024), and the later 310P3-only pod is placed. The pods
   * are deleted afterwards.
   */
  private void scarceType() throws InterruptedException {
    Map<String, String> only310p = Map.of(AnnotationKeys.USE_NPU_TYPE, "310P3");
    List<String> first = List.of("only-310p-1", "only-310p-2");
    for (String name : first) {
      create(inference(name, 10, 2, null, only310p, Map.of()));
    }
    // Placed, not only settled: as the first step, a scheduler may call them unschedulable for a
    // moment while the nodes come up, and the flexible pod must come after their reservations.
    Instant placedBy = Instant.now().plus(SETTLE);
    while (Instant.now().isBefore(placedBy) && first.stream().anyMatch(n -> placed(n) == null)) {
      Thread.sleep(200);
    }
    create(
        inference(
            "flexible",
            10,
            2,
            null,
            Map.of(
                AnnotationKeys.NODE_SCHEDULER_POLICY, "fragmentation-aware",
                AnnotationKeys.DEVICE_SCHEDULER_POLICY, "fragmentation-aware"),
            Map.of()));
    settle(List.of("flexible"));
    create(inference("only-310p-3", 10, 2, null, only310p, Map.of()));
    settle(List.of("only-310p-3"));
    Placed flexible = placed("flexible");
    Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
    while (Instant.now().isBefore(deadline) && events("flexible", "VnpuAllocated").isEmpty()) {
      Thread.sleep(200);
    }
    List<String> said = events("flexible", "VnpuAllocated");
    progress.accept("      " + describe("flexible") + "; " + said);
    checks.add(
        new Check(
            "scarce type: a pod that accepts any chip type takes a 910B3 and says it left the"
                + " 310P3 chips to the pods that accept only them",
            flexible != null
                && flexible.vnpus().get(0).chipType().equals("910B3")
                && said.stream().anyMatch(m -> m.contains("left chip type(s) 310P3")),
            describe("flexible") + "; events " + said));
    Placed later = placed("only-310p-3");
    checks.add(
        new Check(
            "scarce type: a later pod that accepts only 310P3 is placed on one",
            later != null && later.vnpus().get(0).chipType().equals("310P3"),
            describe("only-310p-3")));
    for (String name : List.of("only-310p-1", "only-310p-2", "flexible", "only-310p-3")) {
      client.pods().inNamespace(NAMESPACE).withName(name).delete();
    }
  }

  /** The messages of the pod's Events of this reason, oldest first. */
  private List<String> events(String pod, String reason) {
    return client.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
        .filter(event -> pod.equals(event.getInvolvedObject().getName()))
        .filter(event -> reason.equals(event.getReason()))
        .sorted(Comparator.comparing(event -> String.valueOf(event.getLastTimestamp())))
        .map(Event::getMessage)
        .toList();
  }

  /** Waits until the scheduler's ledger holds no pod (its metric says so); whether it did. */
  private boolean ledgerEmptied() throws IOException, InterruptedException {
    Instant deadline = Instant.now().plus(SETTLE);
    while (Instant.now().isBefore(deadline)) {
      Matcher pods = LEDGER_PODS.matcher(scrape(sandbox.schedulerUrl() + "/metrics"));
      if (pods.find() && Double.parseDouble(pods.group(1)) == 0) {
        return true;
      }
      Thread.sleep(200);
    }
    return false;
  }

  // ---- pods ----

  private static Pod example(String name) throws IOException {
    try (InputStream in = Scenario.class.getResourceAsStream("examples/" + name + ".yaml")) {
      if (in == null) {
        throw new IOException("example pod " + name + ".yaml is not in the jar");
      }
      Pod pod = Serialization.unmarshal(in, Pod.class);
      pod.getMetadata().setNamespace(NAMESPACE);
      return pod;
    }
  }

  /** An inference pod of the burst's shape: one container, one vNPU. */
  static Pod inference(
      String name,
      int cores,
      int memoryGib,
      String policy,
      Map<String, String> annotations,
      Map<String, String> environment) {
    Map<String, String> all = new HashMap<>(annotations);
    if (policy != null) {
      all.put(AnnotationKeys.AICORE_POLICY, policy);
    }
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .withAnnotations(all)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("volcano")
        .addNewContainer()
        .withName("main")
        .withImage("inference:1")
        .withEnv(
            environment.entrySet().stream()
                .map(e -> new EnvVar(e.getKey(), e.getValue(), null))
                .toList())
        .withNewResources()
        .addToLimits(ResourceNames.VNPU_NUMBER, new Quantity("1"))
        .addToLimits(ResourceNames.VNPU_CORES, new Quantity(Integer.toString(cores)))
        .addToLimits(ResourceNames.VNPU_MEMORY_GIB, new Quantity(Integer.toString(memoryGib)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** Creates the pod, naming the scheduler that places the cluster's vNPU pods. */
  private void create(Pod pod) {
    pod.getSpec().setSchedulerName(sandbox.schedulerName());
    client.pods().inNamespace(NAMESPACE).resource(pod).create();
  }

  private Pod get(String name) {
    return client.pods().inNamespace(NAMESPACE).withName(name).get();
  }

  /** Waits until each pod runs (or ran) on a node, or the scheduler said why it does not fit. */
  private void settle(List<String> names) throws InterruptedException {
    Instant deadline = Instant.now().plus(SETTLE);
    while (Instant.now().isBefore(deadline) && !names.stream().allMatch(this::settled)) {
      Thread.sleep(200);
    }
  }

  private boolean settled(String name) {
    Pod pod = get(name);
    if (pod.getSpec().getNodeName() != null) {
      String phase = PodPhases.of(pod);
      return phase != null && !phase.equals("Pending");
    }
    return sandbox.unschedulable(pod).isPresent();
  }

  private void awaitPhase(String name, String phase, Duration timeout) throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline) && !phase.equals(PodPhases.of(get(name)))) {
      Thread.sleep(200);
    }
  }

  private Placed placed(String name) {
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

  private String reason(String name) {
    Pod pod = get(name);
    Optional<String> unschedulable = sandbox.unschedulable(pod);
    if (pod.getSpec().getNodeName() == null && unschedulable.isPresent()) {
      return unschedulable.get();
    }
    return pod.getSpec().getNodeName() == null
        ? "not scheduled yet"
        : "bound without an allocation";
  }

  private String describe(String name) {
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

  private static Row row(String pod, String node, VnpuAssignment vnpu) {
    return new Row(pod, node, vnpu.chipIndex(), vnpu.chipType(), vnpu.slice());
  }

  // ---- checks ----

  private void measureShares() throws IOException, InterruptedException {
    String metrics = sandbox.node("mixed").metricsUrl();
    Thread.sleep(1000);
    scrape(metrics);
    Thread.sleep(5000);
    Map<String, Double> measured = new TreeMap<>();
    for (Sample sample : samples(scrape(metrics), "vnpu_container_aicore_share_ratio")) {
      String pod = sample.labels().get("pod");
      if (SHARES.containsKey(pod)) {
        measured.put(pod, sample.value());
      }
    }
    List<String> details = new ArrayList<>();
    boolean within = true;
    for (Map.Entry<String, Integer> share : SHARES.entrySet()) {
      double got = measured.getOrDefault(share.getKey(), -1.0);
      within &= Math.abs(got - share.getValue() / 100.0) <= SHARE_TOLERANCE;
      details.add(String.format("%s %.1f %% (%d %%)", share.getKey(), got * 100, share.getValue()));
    }
    String detail = String.join(", ", details);
    progress.accept("      measured by the exporter over 5 s: " + detail);
    checks.add(
        new Check(
            "two pods on one chip get their fixed AI Core shares within 5 points", within, detail));
  }

  /**
   * An online pod (requests at 30 % load, four 250 us kernels each) alone on a chip, then beside an
   * offline pod of back-to-back 8 ms kernels. The online p99 (the median of its one-second windows'
   * p99) may grow by two offline kernels and half: the sandbox shares two cores with every
   * component and pod, so threads wake late; on a quiet chip {@code make -C libvnpu
   * bench-colocation} holds it to one kernel and 10 % (docs/colocation.md). Today's policies let it
   * grow by the offline pod's queue and slices, tens to hundreds of milliseconds. The offline pod
   * must get chip time the online one leaves idle. A phase beside offline work that misses is
   * measured once more: a burst of the sandbox's own load can hold every window of one phase.
   */
  private void colocate() throws IOException, InterruptedException {
    Map<String, String> pinned = Map.of(AnnotationKeys.USE_NPU_DIE_ID, COLOCATED_CHIP);
    Map<String, String> online = new HashMap<>(pinned);
    online.put(AnnotationKeys.PRIORITY, "online");
    create(
        inference(
            "online",
            50,
            4,
            "elastic",
            online,
            Map.of("WORKLOAD_REQUESTS_PER_SECOND", "300", "WORKLOAD_KERNEL_US", "250")));
    settle(List.of("online"));
    Thread.sleep(PHASE.toMillis());
    int alone = latencies("online").size();
    Map<String, String> offline = new HashMap<>(pinned);
    offline.put(AnnotationKeys.PRIORITY, "offline");
    create(
        inference(
            "offline",
            0,
            4,
            "best-effort",
            offline,
            Map.of("WORKLOAD_KERNEL_US", Integer.toString(OFFLINE_KERNEL_US))));
    settle(List.of("offline"));
    List<Double> aloneWindows = latencies("online").subList(0, alone);
    double aloneP99 = median(aloneWindows.subList(Math.min(1, alone), alone));
    double allowed = aloneP99 * 1.5 + 2 * OFFLINE_KERNEL_US / 1000.0;
    String metrics = sandbox.node("a2-train").metricsUrl();
    boolean holds = false;
    String detail = "";
    for (int attempt = 1; attempt <= MEASUREMENTS && !holds; attempt++) {
      int from = latencies("online").size();
      scrape(metrics);
      Thread.sleep(PHASE.toMillis());
      double offlineShare = chipShare(scrape(metrics), "offline");
      List<Double> windows = latencies("online");
      double shared = median(windows.subList(Math.min(from + 1, windows.size()), windows.size()));
      holds =
          !Double.isNaN(aloneP99)
              && !Double.isNaN(shared)
              && shared <= allowed
              && offlineShare > 0.2;
      detail =
          String.format(
              "online p99 %.1f ms alone, %.1f ms beside offline work (allowed %.1f ms); offline"
                  + " pod's AI Core share %.0f %%%s",
              aloneP99,
              shared,
              allowed,
              offlineShare * 100,
              attempt > 1 ? " (measurement " + attempt + ")" : "");
      progress.accept("      " + detail);
    }
    checks.add(
        new Check(
            "an online pod beside offline work waits about one offline kernel more, and the"
                + " offline pod runs in the time it leaves idle",
            holds,
            detail));
  }

  /**
   * Cluster-wide preemption (docs/colocation.md): {@code batch}, offline and of the {@code
   * vnpu-offline} class, holds 70 % of {@link #PREEMPTED_CHIP}; {@code urgent}, online and of the
   * {@code vnpu-online} class, asks for 60 % of that chip. Volcano's preempt action, asking the
   * extender, evicts {@code batch} and {@code urgent} starts there. kube-scheduler's {@code
   * DefaultPreemption} does not: the node's vNPU counts still hold {@code urgent}, so its own
   * filters need no victim and the extender is never asked ({@link KubePreemption}); {@code urgent}
   * waits beside {@code batch}, and both are deleted after the check.
   *
   * @return the pod that preempted, when one did
   */
  private Optional<String> preempt() throws InterruptedException {
    priorityClass("vnpu-offline", -1000, "Never");
    priorityClass("vnpu-online", 1000, "PreemptLowerPriority");
    Map<String, String> pinned = Map.of(AnnotationKeys.USE_NPU_DIE_ID, PREEMPTED_CHIP);
    create(
        classed(
            inference("batch", 70, 4, "fixed-share", withPriority(pinned, "offline"), Map.of()),
            "vnpu-offline",
            -1000));
    settle(List.of("batch"));
    create(
        classed(
            inference("urgent", 60, 4, "fixed-share", withPriority(pinned, "online"), Map.of()),
            "vnpu-online",
            1000));
    if (sandbox.driver() == Sandbox.Driver.KUBE_SCHEDULER) {
      return notPreempted(
          "kube-scheduler preempts nothing for an online pod while the node's vNPU counts still"
              + " hold it (its dry run needs no victim), and says so",
          reason -> reason.contains("expected at least one victim pod"));
    }
    if (!sandbox.volcanoPreemptsForAChip()) {
      return notPreempted(
          "Volcano before 1.16 preempts nothing for an online pod while the node's vNPU resources"
              + " hold it in sum, and the extender says why the pod fits no chip",
          reason -> reason.contains("not enough AI Core"));
    }
    awaitPhase("urgent", "Running", SETTLE);
    Placed urgent = placed("urgent");
    boolean evicted =
        get("batch") == null
            && client.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
                .anyMatch(
                    e ->
                        "Evict".equals(e.getReason())
                            && "batch".equals(e.getInvolvedObject().getName()));
    String detail =
        describe("urgent") + (evicted ? "; batch evicted (event Evict)" : "; batch not evicted");
    progress.accept("      " + detail);
    checks.add(
        new Check(
            "an online pod that fits no chip preempts the offline pod on its chip and starts",
            evicted
                && urgent != null
                && "Running".equals(PodPhases.of(get("urgent")))
                && urgent.vnpus().get(0).dieId().equals(PREEMPTED_CHIP),
            detail));
    return Optional.of("urgent");
  }

  /**
   * The half of {@link #preempt} where the scheduler does not preempt: {@code urgent} waits with a
   * reason {@code says} accepts, {@code batch} runs on.
   */
  private Optional<String> notPreempted(String promise, Predicate<String> says)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(SETTLE);
    String reason = null;
    while (Instant.now().isBefore(deadline) && (reason == null || !says.test(reason))) {
      Thread.sleep(200);
      Pod urgent = get("urgent");
      reason =
          urgent == null || urgent.getStatus() == null
              ? null
              : urgent.getStatus().getConditions().stream()
                  .filter(c -> "PodScheduled".equals(c.getType()))
                  .map(PodCondition::getMessage)
                  .findFirst()
                  .orElse(null);
    }
    String detail = "urgent pending: " + reason;
    progress.accept("      " + detail);
    checks.add(
        new Check(
            promise,
            reason != null && says.test(reason) && "Running".equals(PodPhases.of(get("batch"))),
            detail));
    for (String name : List.of("urgent", "batch")) {
      client.pods().inNamespace(NAMESPACE).withName(name).delete();
    }
    return Optional.empty();
  }

  private static Map<String, String> withPriority(
      Map<String, String> annotations, String priority) {
    Map<String, String> all = new HashMap<>(annotations);
    all.put(AnnotationKeys.PRIORITY, priority);
    return all;
  }

  /**
   * The PriorityClass docs/colocation.md recommends, created when missing: a pod naming a class
   * that does not exist is refused by the API server's Priority admission.
   */
  private void priorityClass(String name, int value, String preemptionPolicy) {
    if (client.scheduling().v1().priorityClasses().withName(name).get() == null) {
      client
          .scheduling()
          .v1()
          .priorityClasses()
          .resource(
              new PriorityClassBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .endMetadata()
                  .withValue(value)
                  .withPreemptionPolicy(preemptionPolicy)
                  .build())
          .create();
    }
  }

  /** {@code pod} of the PriorityClass {@code name}, with the priority admission gives it. */
  private static Pod classed(Pod pod, String name, int value) {
    pod.getSpec().setPriorityClassName(name);
    pod.getSpec().setPriority(value);
    return pod;
  }

  /** The p99 of each one-second window the pod's workload reported so far, in milliseconds. */
  private List<Double> latencies(String name) throws IOException {
    List<Double> windows = new ArrayList<>();
    for (String line : log(name).split("\n")) {
      Matcher matcher = LATENCY.matcher(line);
      if (matcher.find()) {
        windows.add(Double.parseDouble(matcher.group(1)));
      }
    }
    return windows;
  }

  private static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = values.stream().sorted().toList();
    return sorted.get(sorted.size() / 2);
  }

  /**
   * What the exporter says the chip's containers of {@code priority} held since its last scrape.
   */
  private double chipShare(String exposition, String priority) {
    for (Sample sample : samples(exposition, "vnpu_chip_aicore_share_ratio")) {
      if (COLOCATED_CHIP.equals(sample.labels().get("die_id"))
          && priority.equals(sample.labels().get("priority"))) {
        return sample.value();
      }
    }
    return 0;
  }

  /** The container log of the pod {@code name}, or "(no log)". */
  private String log(String name) throws IOException {
    Pod pod = get(name);
    Path log =
        sandbox
            .nodeDirectory(String.valueOf(pod.getSpec().getNodeName()))
            .resolve("pods")
            .resolve(NAMESPACE)
            .resolve(name)
            .resolve("main")
            .resolve("log");
    return Files.exists(log) ? Files.readString(log).strip() : "(no log)";
  }

  private void checkQuota() throws IOException {
    Pod pod = get("over-quota");
    String output = log("over-quota");
    String status =
        pod.getStatus() == null
            ? "no status"
            : pod.getStatus().getPhase() + ": " + pod.getStatus().getMessage();
    progress.accept("      " + status + "; its log: " + output);
    checks.add(
        new Check(
            "a model larger than its 4 GiB quota is refused device memory",
            "Failed".equals(PodPhases.of(pod)) && output.contains("6144 MiB refused"),
            output));
  }

  /**
   * Every running pod of {@code names} in its node's exporter, and every chip. A pod that started a
   * moment ago (one the burst first found no room for, placed on a later try) reaches the exporter
   * on its next poll, so the scrape is repeated for up to {@link #METRICS_CATCH_UP}.
   */
  private void checkMetrics(List<String> names) throws IOException, InterruptedException {
    Instant deadline = Instant.now().plus(METRICS_CATCH_UP);
    Map<String, String> exposition = new HashMap<>();
    List<String> missing = new ArrayList<>();
    int running;
    do {
      if (!missing.isEmpty()) {
        Thread.sleep(1000);
      }
      for (SandboxNode node : sandbox.nodes()) {
        exposition.put(node.name(), scrape(node.metricsUrl()));
      }
      missing.clear();
      running = 0;
      for (String name : names) {
        Pod pod = get(name);
        if (!"Running".equals(PodPhases.of(pod))) {
          continue;
        }
        running++;
        boolean present =
            samples(
                    exposition.get(pod.getSpec().getNodeName()),
                    "vnpu_container_memory_limit_bytes")
                .stream()
                .anyMatch(sample -> name.equals(sample.labels().get("pod")));
        if (!present) {
          missing.add(name);
        }
      }
    } while (!missing.isEmpty() && Instant.now().isBefore(deadline));
    boolean chips = exposition.values().stream().allMatch(text -> text.contains("vnpu_chip_info{"));
    String detail =
        running
            + " running pods, "
            + (missing.isEmpty() ? "all" : "missing " + missing)
            + " in vnpu_container_memory_limit_bytes";
    progress.accept("      " + detail);
    checks.add(
        new Check(
            "every running pod and every chip is in the metrics",
            missing.isEmpty() && chips,
            detail));
  }

  private void checkNoOvercommit(List<String> names) {
    List<Pod> pods = names.stream().map(this::get).filter(pod -> pod != null).toList();
    Overcommit.Finding finding = Overcommit.of(pods, catalog);
    checks.add(
        new Check(
            "no chip is promised more AI Core or memory than it has",
            finding.overcommitted().isEmpty(),
            finding.overcommitted().isEmpty()
                ? finding.chipsInUse() + " chips in use"
                : "over-committed: " + finding.overcommitted()));
  }

  /** vNPU sharing against whole cards for the same soft-shared pods. */
  private List<String> compare(List<String> names) {
    int shared = 0;
    int wholeCards = 0;
    Map<String, int[]> chipCores = new TreeMap<>();
    for (String name : names) {
      Placed placed = placed(name);
      if (placed == null) {
        continue;
      }
      for (VnpuAssignment vnpu : placed.vnpus()) {
        if (vnpu.wholeCard()) {
          wholeCards++;
        } else {
          shared++;
          chipCores.computeIfAbsent(placed.node() + "/" + vnpu.chipIndex(), c -> new int[1])[0] +=
              vnpu.cores();
        }
      }
    }
    int chips = sandbox.nodes().stream().mapToInt(node -> node.spec().chips().size()).sum();
    int free = chips - wholeCards;
    double cores =
        chipCores.values().stream().mapToInt(c -> c[0]).sum()
            / (double) Math.max(1, chipCores.size());
    return List.of(
        String.format(
            "vNPU: %d sliced vNPUs share %d chips, %.0f %% of their AI Cores allocated on average",
            shared, chipCores.size(), cores),
        String.format(
            "whole cards: the same %d pods would need %d chips; %d of the cluster's %d are not held by"
                + " whole-card pods, so %d of them would run and %d would wait",
            shared, shared, free, chips, Math.min(shared, free), Math.max(0, shared - free)));
  }

  // ---- metrics ----

  private record Sample(Map<String, String> labels, double value) {}

  private String scrape(String url) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static List<Sample> samples(String exposition, String metric) {
    List<Sample> samples = new ArrayList<>();
    for (String line : exposition.split("\n")) {
      Matcher matcher = SAMPLE.matcher(line);
      if (matcher.matches() && matcher.group(1).equals(metric)) {
        Map<String, String> labels = new HashMap<>();
        for (String pair : matcher.group(2).split(",")) {
          String[] parts = pair.split("=", 2);
          labels.put(parts[0], parts[1].replace("\"", ""));
        }
        samples.add(new Sample(labels, Double.parseDouble(matcher.group(3))));
      }
    }
    return samples;
  }
}
