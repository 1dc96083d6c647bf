package org.vnpu.core.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import org.vnpu.api.Priority;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodRequest;

/**
 * Which running pods to move so that a pending pod fits, and which offline pods to move off nodes
 * that run hot (docs/rebalancing.md). A move is an eviction whose pod the engine places again on
 * another node. Every plan is checked against the snapshot it leaves behind: each move is charged
 * as the ledger charges it, and the engine, run again, places the pending pod. Pure.
 */
public final class RebalancePlanner {

  /**
   * A running pod a plan may move.
   *
   * @param plan where it runs now
   * @param request what it asks, for placing it again
   * @param running how long it has run: the work a move loses
   */
  public record Movable(AllocationPlan plan, PodRequest request, Duration running) {

    public String podUid() {
      return plan.podUid();
    }

    public String node() {
      return plan.node();
    }
  }

  /**
   * One eviction and the place the engine found for the pod again.
   *
   * @param pod the pod evicted from {@code pod.node()}
   * @param to where it goes
   */
  public record Move(Movable pod, AllocationPlan to) {}

  /**
   * Moves to make, in order, and where the pending pod goes once they are made.
   *
   * @param moves the moves; none when the pending pod fits already
   * @param pending the pending pod's place; null for a plan that only cools hot nodes
   */
  public record Plan(List<Move> moves, AllocationPlan pending) {

    public Plan {
      moves = List.copyOf(moves);
    }

    /** The work the moves lose: the sum of the moved pods' running times. */
    public Duration workLost() {
      return moves.stream().map(m -> m.pod().running()).reduce(Duration.ZERO, Duration::plus);
    }

    /** Fewer moves, then less work lost. */
    boolean cheaperThan(Plan other) {
      return moves.size() != other.moves.size()
          ? moves.size() < other.moves.size()
          : workLost().compareTo(other.workLost()) < 0;
    }
  }

  /**
   * Nodes looked at, the most promising first, and nodes searched for a plan among them (those on
   * which the pods that could go elsewhere make room), so that a plan costs bounded time.
   */
  static final int NODES_EXAMINED = 16;

  static final int NODES_SEARCHED = 8;

  /** Nodes searched after the first that gave a plan. */
  static final int NODES_AFTER_FIRST_PLAN = 4;

  /** Victim sets looked at per node and plan size. */
  static final int SETS_PER_SIZE = 512;

  /** Victim sets per node and size whose pods the engine tries to place elsewhere. */
  static final int RELOCATIONS_PER_SIZE = 2;

  /**
   * A node a plan may free for the pending pod.
   *
   * @param node the node
   * @param pods its movable pods, cheapest first
   * @param evictions how many of them, largest first, must go before the pending pod fits
   */
  private record Target(NodeState node, List<Movable> pods, int evictions) {}

  private static final Comparator<Movable> CHEAPEST_FIRST =
      Comparator.comparing(Movable::running).thenComparing(Movable::podUid);

  private static final Comparator<Movable> LARGEST_FIRST =
      Comparator.comparingLong((Movable pod) -> pod.request().computePercent())
          .reversed()
          .thenComparing(Movable::podUid);

  private final TreeMap<String, NodeState> snapshot = new TreeMap<>();
  private final PlacementContext context;
  private final Map<String, Boolean> placeable = new HashMap<>();

  private RebalancePlanner(Collection<NodeState> nodes, PlacementContext context) {
    nodes.forEach(node -> snapshot.put(node.name(), node));
    this.context = context;
  }

  /**
   * The cheapest plan of at most {@code maxMoves} moves after which {@code pending} fits: no moves
   * when it fits already; nothing when no plan was found. The pods moved are taken from {@code
   * movable} and all come from the node the pending pod goes to; each goes to another node.
   */
  public static Optional<Plan> forPending(
      PodRequest pending,
      HostResources host,
      Collection<NodeState> nodes,
      Collection<Movable> movable,
      int maxMoves,
      PlacementContext context) {
    return new RebalancePlanner(nodes, context).plan(pending, host, movable, maxMoves);
  }

  /**
   * Offline pods to move off nodes whose allocated AI Core is above {@code marks.high()}, each to a
   * node below {@code marks.low()} that stays at or below the high mark after it, at most {@code
   * maxMoves}; nothing when no node runs hot, no node is cool, or no pod can go. A node that a move
   * cools below the low mark takes no pod: only nodes cool before the plan do, or the plan would
   * move pods onto the node it empties.
   */
  public static Optional<Plan> cooling(
      Collection<NodeState> nodes,
      Collection<Movable> movable,
      Watermarks marks,
      int maxMoves,
      PlacementContext context) {
    return new RebalancePlanner(nodes, context).cool(movable, marks, maxMoves);
  }

  /** Allocated AI Core of the node, 0..100: the mean over its chips; 0 without chips. */
  public static double allocatedCompute(NodeState node) {
    if (node.chips().isEmpty()) {
      return 0;
    }
    double sum = 0;
    for (ChipState chip : node.chips()) {
      sum += 100 - chip.freeComputePercent();
    }
    return sum / node.chips().size();
  }

  private Optional<Plan> plan(
      PodRequest pending, HostResources host, Collection<Movable> movable, int maxMoves) {
    if (PlacementEngine.place(pending, host, snapshot.values(), context)
        instanceof Decision.Placed placed) {
      return Optional.of(new Plan(List.of(), placed.plan()));
    }
    Plan best = null;
    int searched = 0;
    int searchedSinceFirst = 0;
    int examined = 0;
    for (Target target : promising(pending, host, movable)) {
      if (++examined > NODES_EXAMINED
          || searched >= NODES_SEARCHED
          || (best != null && searchedSinceFirst >= NODES_AFTER_FIRST_PLAN)) {
        break;
      }
      NodeState node = target.node();
      List<Movable> pods = target.pods().stream().filter(this::placeableElsewhere).toList();
      if (!fits(pending, host, without(node, pods))) {
        continue;
      }
      searched++;
      if (best != null) {
        searchedSinceFirst++;
      }
      int largest = best == null ? maxMoves : best.moves().size();
      for (int size = 1; size <= Math.min(largest, pods.size()); size++) {
        Optional<Plan> found = cheapestOfSize(pending, host, node, pods, size);
        if (found.isPresent()) {
          if (best == null || found.get().cheaperThan(best)) {
            best = found.get();
          }
          break;
        }
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * The nodes on which evicting movable pods would make room for the pending pod, with those pods
   * cheapest first; nodes that need fewer evictions (counted largest pod first) come first. Only
   * pods that ask for less compute than the pending pod count: moving one at least as large takes
   * elsewhere as much as it frees.
   */
  private List<Target> promising(
      PodRequest pending, HostResources host, Collection<Movable> movable) {
    Map<String, List<Movable>> byNode = new TreeMap<>();
    for (Movable pod : movable) {
      if (snapshot.containsKey(pod.node())
          && !pod.podUid().equals(pending.uid())
          && pod.request().computePercent() < pending.computePercent()) {
        byNode.computeIfAbsent(pod.node(), n -> new ArrayList<>()).add(pod);
      }
    }
    List<Target> targets = new ArrayList<>();
    byNode.forEach(
        (name, pods) -> {
          NodeState freed = snapshot.get(name);
          int evicted = 0;
          for (Movable pod : pods.stream().sorted(LARGEST_FIRST).toList()) {
            freed = Ledger.without(freed, pod.plan());
            evicted++;
            if (fits(pending, host, freed)) {
              pods.sort(CHEAPEST_FIRST);
              targets.add(new Target(snapshot.get(name), pods, evicted));
              return;
            }
          }
        });
    targets.sort(Comparator.comparingInt(Target::evictions).thenComparing(t -> t.node().name()));
    return targets;
  }

  /** The plan of {@code size} moves off {@code target} that loses the least work, if any works. */
  private Optional<Plan> cheapestOfSize(
      PodRequest pending, HostResources host, NodeState target, List<Movable> pods, int size) {
    List<List<Movable>> freeing = new ArrayList<>();
    Combinations.each(
        pods,
        size,
        new int[] {SETS_PER_SIZE},
        set -> {
          if (fits(pending, host, without(target, set))) {
            freeing.add(set);
          }
        });
    freeing.sort(Comparator.comparing(RebalancePlanner::running));
    for (List<Movable> set : freeing.subList(0, Math.min(RELOCATIONS_PER_SIZE, freeing.size()))) {
      Optional<Plan> plan = relocate(pending, host, target, set);
      if (plan.isPresent()) {
        return plan;
      }
    }
    return Optional.empty();
  }

  /**
   * Holds the pending pod's place on {@code target} without {@code victims}, places each victim
   * (largest first) on another node, then checks the result by running the engine again.
   */
  private Optional<Plan> relocate(
      PodRequest pending, HostResources host, NodeState target, List<Movable> victims) {
    TreeMap<String, NodeState> after = new TreeMap<>(snapshot);
    NodeState freed = without(target, victims);
    if (!fits(pending, host, freed)) {
      return Optional.empty();
    }
    after.remove(target.name());
    List<Move> moves = new ArrayList<>();
    for (Movable victim : victims.stream().sorted(LARGEST_FIRST).toList()) {
      Optional<Move> move = moveSomewhere(victim, after, node -> true);
      if (move.isEmpty()) {
        return Optional.empty();
      }
      moves.add(move.get());
    }
    after.put(target.name(), freed);
    if (PlacementEngine.place(pending, host, after.values(), context)
            instanceof Decision.Placed placed
        && placed.plan().node().equals(target.name())) {
      return Optional.of(new Plan(moves, placed.plan()));
    }
    return Optional.empty();
  }

  private Optional<Plan> cool(Collection<Movable> movable, Watermarks marks, int maxMoves) {
    Set<String> coolBefore = new HashSet<>();
    snapshot.forEach(
        (name, node) -> {
          if (allocatedCompute(node) < marks.low()) {
            coolBefore.add(name);
          }
        });
    List<NodeState> hot =
        snapshot.values().stream()
            .filter(node -> allocatedCompute(node) > marks.high())
            .sorted(
                Comparator.comparingDouble(RebalancePlanner::allocatedCompute)
                    .reversed()
                    .thenComparing(NodeState::name))
            .toList();
    List<Move> moves = new ArrayList<>();
    for (NodeState hotNode : hot) {
      List<Movable> offline =
          movable.stream()
              .filter(pod -> pod.node().equals(hotNode.name()))
              .filter(pod -> pod.plan().allocation().priority() == Priority.OFFLINE)
              .sorted(LARGEST_FIRST)
              .toList();
      for (Movable pod : offline) {
        NodeState source = snapshot.get(hotNode.name());
        if (moves.size() == maxMoves || allocatedCompute(source) <= marks.high()) {
          break;
        }
        TreeMap<String, NodeState> cool = new TreeMap<>();
        snapshot.forEach(
            (name, node) -> {
              if (coolBefore.contains(name) && allocatedCompute(node) < marks.low()) {
                cool.put(name, node);
              }
            });
        Optional<Move> move =
            moveSomewhere(pod, cool, node -> allocatedCompute(node) <= marks.high());
        if (move.isPresent()) {
          snapshot.put(source.name(), Ledger.without(source, pod.plan()));
          snapshot.put(move.get().to().node(), cool.get(move.get().to().node()));
          moves.add(move.get());
        }
      }
    }
    return moves.isEmpty() ? Optional.empty() : Optional.of(new Plan(moves, null));
  }

  /**
   * Where the engine places {@code pod} among {@code nodes}, charged there; nothing when it places
   * it nowhere, the charge does not fit or the node after it fails {@code acceptable}.
   */
  private Optional<Move> moveSomewhere(
      Movable pod, TreeMap<String, NodeState> nodes, Predicate<NodeState> acceptable) {
    if (!(PlacementEngine.place(pod.request(), pod.plan().host(), nodes.values(), context)
        instanceof Decision.Placed placed)) {
      return Optional.empty();
    }
    Optional<NodeState> charged =
        Ledger.with(nodes.get(placed.plan().node()), placed.plan()).filter(acceptable);
    charged.ifPresent(node -> nodes.put(node.name(), node));
    return charged.map(node -> new Move(pod, placed.plan()));
  }

  /**
   * Whether the engine could place the pod on some other node as things stand: a pod that cannot go
   * anywhere is not worth a plan's search. Worked out once per pod and plan.
   */
  private boolean placeableElsewhere(Movable pod) {
    return placeable.computeIfAbsent(
        pod.podUid(),
        uid -> {
          Function<NodeState, NodeFit> feasible =
              PlacementEngine.feasibility(pod.request(), pod.plan().host(), context);
          for (NodeState node : snapshot.values()) {
            if (!node.name().equals(pod.node()) && feasible.apply(node) instanceof NodeFit.Fits) {
              return true;
            }
          }
          return false;
        });
  }

  private boolean fits(PodRequest pod, HostResources host, NodeState node) {
    return PlacementEngine.fit(pod, host, node, context) instanceof NodeFit.Fits;
  }

  private static NodeState without(NodeState node, List<Movable> pods) {
    NodeState after = node;
    for (Movable pod : pods) {
      after = Ledger.without(after, pod.plan());
    }
    return after;
  }

  private static Duration running(List<Movable> pods) {
    return pods.stream().map(Movable::running).reduce(Duration.ZERO, Duration::plus);
  }
}
