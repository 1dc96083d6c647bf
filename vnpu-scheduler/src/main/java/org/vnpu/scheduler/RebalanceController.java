package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.core.engine.RebalancePlanner.Move;
import org.vnpu.core.engine.RebalancePlanner.Plan;
import org.vnpu.core.request.PodManifest;

/**
 * The rebalancer (docs/rebalancing.md, ADR 0014): a loop the scheduler's leader runs. Each pass
 * reads the pods from the API server, asks the ledger for a plan for each pending vNPU pod that has
 * waited long enough and for nodes that stayed hot, and carries the plans out safely: dry-run by
 * default; in execute mode the places are held before any eviction, evictions go through the
 * Eviction API (so PodDisruptionBudgets hold), and they are limited per interval, node and owner.
 * Not thread-safe: one thread runs the passes.
 */
public final class RebalanceController {

  private static final Logger LOG = LoggerFactory.getLogger(RebalanceController.class);

  /** Pending pods planned for per pass, the first in line: a pass costs bounded time. */
  static final int PENDING_PER_PASS = 10;

  /** Owner kinds whose pods come back when evicted: only their pods move. */
  static final Set<String> OWNERS = Set.of("ReplicaSet", "StatefulSet", "Job");

  /**
   * What one pass decided about one pending pod or about hot nodes.
   *
   * @param pod the pending pod ({@code namespace/name}), or {@code hot nodes}
   * @param plan the plan, or null when there is none
   * @param outcome {@code planned} (dry-run), {@code moved}, or why nothing moved
   */
  public record Decision(String pod, Plan plan, String outcome) {}

  private final EvictionPort cluster;
  private final RebalanceLedger scheduler;
  private final RebalanceSettings settings;
  private final Clock clock;
  private final EventSink events;
  private final Map<String, Instant> movedOwners = new HashMap<>();
  private final Map<String, Instant> hotSince = new HashMap<>();
  private final Map<String, Integer> perNode = new HashMap<>();
  private final Map<String, Integer> perOwner = new HashMap<>();
  private Instant window = Instant.MIN;
  private int evicted;

  private final boolean announce;

  public RebalanceController(
      KubernetesClient client, RebalanceLedger scheduler, RebalanceSettings settings, Clock clock) {
    this(new KubeEvictions(client), scheduler, settings, clock, new PodEvents(client, clock), true);
  }

  RebalanceController(
      EvictionPort cluster,
      RebalanceLedger scheduler,
      RebalanceSettings settings,
      Clock clock,
      EventSink events,
      boolean announce) {
    this.cluster = cluster;
    this.scheduler = scheduler;
    this.settings = settings;
    this.clock = clock;
    this.announce = announce;
    this.events = events;
  }

  /**
   * A controller that only says what the rebalancer would do now ({@code vnpu rebalance
   * --dry-run}): dry-run whatever {@code settings} say, with no Events and no pending time waited.
   */
  public static RebalanceController preview(
      KubernetesClient client, RebalanceLedger scheduler, RebalanceSettings settings, Clock clock) {
    RebalanceSettings now =
        new RebalanceSettings(
            RebalanceMode.DRY_RUN,
            settings.interval(),
            Duration.ZERO,
            settings.movableBelow(),
            settings.movesPerPlan(),
            settings.evictionsPerInterval(),
            settings.evictionsPerNode(),
            settings.evictionsPerOwner(),
            settings.cooldown(),
            settings.marks(),
            Duration.ZERO,
            settings.holdFor());
    return new RebalanceController(
        new KubeEvictions(client), scheduler, now, clock, new PodEvents(client, clock), false);
  }

  public RebalanceSettings settings() {
    return settings;
  }

  /** One pass over the cluster as the API server lists it now. */
  public List<Decision> pass() {
    if (settings.mode() == RebalanceMode.OFF) {
      return List.of();
    }
    Instant now = clock.instant();
    if (!now.isBefore(window.plus(settings.interval()))) {
      window = now;
      evicted = 0;
      perNode.clear();
      perOwner.clear();
    }
    movedOwners.values().removeIf(at -> at.plus(settings.cooldown()).isBefore(now));
    List<Pod> pods = cluster.pods();
    Map<String, Pod> byUid = new HashMap<>();
    pods.forEach(pod -> byUid.put(pod.getMetadata().getUid(), pod));
    List<PodManifest> candidates =
        pods.stream().filter(this::movable).map(Fabric8Views::manifest).toList();
    List<Decision> decisions = new ArrayList<>();
    for (Pod pod : pending(pods, now).stream().limit(PENDING_PER_PASS).toList()) {
      decisions.add(rebalanceFor(Fabric8Views.manifest(pod), candidates, byUid));
    }
    cool(candidates, byUid, now).ifPresent(decisions::add);
    return decisions;
  }

  private Decision rebalanceFor(
      PodManifest pending, List<PodManifest> candidates, Map<String, Pod> byUid) {
    String name = pending.namespace() + "/" + pending.name();
    int budget = Math.min(settings.movesPerPlan(), settings.evictionsPerInterval() - evicted);
    if (budget < 1) {
      return refused(name, null, "rate-limit");
    }
    Optional<Plan> plan;
    try {
      plan =
          scheduler.rebalancePlan(
              pending, withinLimits(candidates, byUid), settings.movableBelow(), budget);
    } catch (SchedulingException e) {
      return refused(name, null, "invalid-pod");
    }
    if (plan.isEmpty()) {
      return refused(name, null, "no-plan");
    }
    return carryOut(pending, name, plan.get(), byUid);
  }

  /** Moves offline pods off nodes that stayed above the high mark for {@code hotFor}. */
  private Optional<Decision> cool(
      List<PodManifest> candidates, Map<String, Pod> byUid, Instant now) {
    Map<String, Double> allocated = scheduler.allocatedCompute();
    hotSince.keySet().retainAll(allocated.keySet());
    allocated.forEach(
        (node, percent) -> {
          if (percent > settings.marks().high()) {
            hotSince.putIfAbsent(node, now);
          } else {
            hotSince.remove(node);
          }
        });
    Set<String> longHot =
        hotSince.entrySet().stream()
            .filter(e -> !e.getValue().plus(settings.hotFor()).isAfter(now))
            .map(Map.Entry::getKey)
            .collect(Collectors.toSet());
    int budget = Math.min(settings.movesPerPlan(), settings.evictionsPerInterval() - evicted);
    if (longHot.isEmpty() || budget < 1) {
      return Optional.empty();
    }
    List<PodManifest> onHotNodes =
        withinLimits(candidates, byUid).stream()
            .filter(pod -> longHot.contains(byUid.get(pod.uid()).getSpec().getNodeName()))
            .toList();
    return scheduler
        .coolingPlan(onHotNodes, settings.marks(), budget)
        .map(plan -> carryOut(null, "hot nodes " + longHot, plan, byUid));
  }

  private Decision carryOut(PodManifest pending, String name, Plan plan, Map<String, Pod> byUid) {
    String described = describe(plan, byUid);
    scheduler.countRebalance("plans", settings.mode().wireName());
    if (settings.mode() == RebalanceMode.DRY_RUN) {
      LOG.info("rebalance (dry-run) for {}: {}", name, described);
      if (pending != null && announce) {
        events.rebalancing(pending, "dry-run: would " + described);
      }
      return new Decision(name, plan, "planned");
    }
    if (!scheduler.holdRebalance(pending, plan, settings.holdFor())) {
      return refused(name, plan, "ledger-changed");
    }
    LOG.info("rebalance for {}: {}", name, described);
    if (pending != null) {
      events.rebalancing(pending, described + "; its place is held until they are gone");
    }
    List<Move> moves = plan.moves();
    for (int i = 0; i < moves.size(); i++) {
      Pod pod = byUid.get(moves.get(i).pod().podUid());
      PodManifest moved = Fabric8Views.manifest(pod);
      String refusal = evict(pod);
      if (refusal != null) {
        List<String> notMoved =
            moves.subList(i, moves.size()).stream().map(m -> m.pod().podUid()).toList();
        scheduler.cancelRebalance(pending, notMoved);
        events.rebalanceRefused(
            moved, "not moved for " + name + " (" + refusal + "); the plan is cancelled");
        return refused(name, plan, refusal);
      }
      count(pod);
      scheduler.countRebalance("moves", settings.mode().wireName());
      events.rebalanced(
          moved,
          "evicted to rebalance"
              + (pending == null ? " hot nodes" : " for pod " + name)
              + "; a replacement's place is held on node "
              + moves.get(i).to().node());
    }
    return new Decision(name, plan, "moved");
  }

  /**
   * Evicts the pod through the Eviction API; null when it went, else why not: {@code
   * disruption-budget} (HTTP 429, a PodDisruptionBudget allows no disruption now) or {@code
   * eviction-failed}.
   */
  private String evict(Pod pod) {
    try {
      boolean evicted =
          cluster.evict(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
      return evicted ? null : "disruption-budget";
    } catch (RuntimeException e) {
      LOG.warn(
          "cannot evict pod {}/{}: {}",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          e.getMessage());
      return "eviction-failed";
    }
  }

  private void count(Pod pod) {
    evicted++;
    perNode.merge(pod.getSpec().getNodeName(), 1, Integer::sum);
    String owner = Fabric8Views.owner(pod);
    perOwner.merge(owner, 1, Integer::sum);
    movedOwners.put(owner, clock.instant());
  }

  private Decision refused(String name, Plan plan, String reason) {
    scheduler.countRebalance("refusals", reason);
    if (!"no-plan".equals(reason)) {
      LOG.info("rebalance for {} refused: {}", name, reason);
    }
    return new Decision(name, plan, reason);
  }

  /** The candidates whose node and owner are still within this interval's eviction limits. */
  private List<PodManifest> withinLimits(List<PodManifest> candidates, Map<String, Pod> byUid) {
    return candidates.stream()
        .filter(
            pod -> {
              Pod live = byUid.get(pod.uid());
              return perNode.getOrDefault(live.getSpec().getNodeName(), 0)
                      < settings.evictionsPerNode()
                  && perOwner.getOrDefault(Fabric8Views.owner(live), 0)
                      < settings.evictionsPerOwner();
            })
        .toList();
  }

  /**
   * Whether the pod may move at all: bound, running, not on its way out, owned by a controller that
   * brings it back, and its owner not moved within the cool-down. Priorities are the scheduler's to
   * judge, from the signed allocation.
   */
  private boolean movable(Pod pod) {
    Optional<OwnerReference> owner = Fabric8Views.controller(pod);
    return Fabric8Views.bound(pod)
        && pod.getMetadata().getDeletionTimestamp() == null
        && pod.getStatus() != null
        && "Running".equals(pod.getStatus().getPhase())
        && owner.isPresent()
        && OWNERS.contains(owner.get().getKind())
        && !movedOwners.containsKey(owner.get().getUid());
  }

  /**
   * Pods pending longer than {@code pendingFor}, the highest priority and then the oldest first.
   */
  private List<Pod> pending(List<Pod> pods, Instant now) {
    return pods.stream()
        .filter(pod -> pod.getSpec() != null && pod.getSpec().getNodeName() == null)
        .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
        .filter(pod -> pod.getStatus() == null || "Pending".equals(pod.getStatus().getPhase()))
        .filter(pod -> created(pod).plus(settings.pendingFor()).isBefore(now))
        .filter(pod -> scheduler.requestsVnpus(Fabric8Views.manifest(pod)))
        .sorted(
            Comparator.comparing(
                    (Pod pod) ->
                        pod.getSpec().getPriority() == null ? 0 : pod.getSpec().getPriority())
                .reversed()
                .thenComparing(this::created))
        .toList();
  }

  /** When the pod was created; a pod that does not say counts as created now. */
  private Instant created(Pod pod) {
    String text = pod.getMetadata().getCreationTimestamp();
    try {
      return text == null ? clock.instant() : Instant.parse(text);
    } catch (java.time.format.DateTimeParseException e) {
      return clock.instant();
    }
  }

  /**
   * E.g. {@code move 2 pod(s): ns/a node-1 -> node-2, ns/b node-1 -> node-3, then ns/p on node-1}.
   */
  private static String describe(Plan plan, Map<String, Pod> byUid) {
    String moves =
        plan.moves().stream()
            .map(
                m -> {
                  Pod pod = byUid.get(m.pod().podUid());
                  return pod.getMetadata().getNamespace()
                      + "/"
                      + pod.getMetadata().getName()
                      + " "
                      + m.pod().node()
                      + " -> "
                      + m.to().node();
                })
            .collect(Collectors.joining(", "));
    return "move "
        + plan.moves().size()
        + " pod(s): "
        + moves
        + (plan.pending() == null ? "" : ", then place it on node " + plan.pending().node());
  }
}
