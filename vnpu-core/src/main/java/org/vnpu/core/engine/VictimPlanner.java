package org.vnpu.core.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.vnpu.api.Priority;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodRequest;

/**
 * Which offline pods on a node to evict so that an online pod fits there (docs/colocation.md): the
 * fewest, then those of the lowest Kubernetes priority, then those that lose the least work. Every
 * answer is checked by planning the pod on the node without its victims. Pure.
 */
public final class VictimPlanner {

  /**
   * A pod the preemptor may evict.
   *
   * @param plan its placement on the node
   * @param priority its Kubernetes priority ({@code spec.priority})
   * @param running how long it has run: the work its eviction loses
   */
  public record Candidate(AllocationPlan plan, int priority, Duration running) {

    public String podUid() {
      return plan.podUid();
    }
  }

  /** Victim sets tried one by one before a greedy choice takes over. */
  static final int EXACT_BUDGET = 4096;

  private static final Comparator<Candidate> CHEAPEST_FIRST =
      Comparator.comparingInt(Candidate::priority)
          .thenComparing(Candidate::running)
          .thenComparing(Candidate::podUid);

  private final PodRequest preemptor;
  private final HostResources host;
  private final NodeState node;
  private final PlacementContext context;
  private final List<Candidate> eligible;

  private VictimPlanner(
      PodRequest preemptor,
      HostResources host,
      NodeState node,
      Collection<Candidate> candidates,
      PlacementContext context) {
    this.preemptor = preemptor;
    this.host = host;
    this.node = node;
    this.context = context;
    this.eligible =
        candidates.stream()
            .filter(c -> c.plan().node().equals(node.name()))
            .filter(c -> c.plan().allocation().priority() == Priority.OFFLINE)
            .filter(c -> !c.podUid().equals(preemptor.uid()))
            .sorted(CHEAPEST_FIRST)
            .toList();
  }

  /**
   * The victims among {@code candidates} after whose eviction {@code preemptor} fits {@code node}:
   * empty when it fits already; nothing when it is offline (offline work evicts no vNPU pod) or no
   * set of the node's offline candidates makes room. Candidates on other nodes, online ones and the
   * preemptor itself are never chosen.
   */
  public static Optional<List<Candidate>> victims(
      PodRequest preemptor,
      HostResources host,
      NodeState node,
      Collection<Candidate> candidates,
      PlacementContext context) {
    if (preemptor.options().offline() != null) {
      return Optional.empty();
    }
    return new VictimPlanner(preemptor, host, node, candidates, context).choose();
  }

  private Optional<List<Candidate>> choose() {
    if (fitsWithout(List.of())) {
      return Optional.of(List.of());
    }
    if (!fitsWithout(eligible)) {
      return Optional.empty();
    }
    int[] budget = {EXACT_BUDGET};
    for (int size = 1; size <= eligible.size(); size++) {
      Optional<List<Candidate>> cheapest = cheapestOfSize(size, budget);
      if (budget[0] < 0) {
        return Optional.of(greedy());
      }
      if (cheapest.isPresent()) {
        return cheapest;
      }
    }
    return Optional.of(greedy()); // unreachable: all of them fit
  }

  /** The cheapest fitting set of {@code size} victims, trying at most {@code budget[0]} sets. */
  private Optional<List<Candidate>> cheapestOfSize(int size, int[] budget) {
    List<List<Candidate>> best = new ArrayList<>(1);
    Combinations.each(
        eligible,
        size,
        budget,
        set -> {
          if ((best.isEmpty() || cheaper(set, best.get(0))) && fitsWithout(set)) {
            best.clear();
            best.add(set);
          }
        });
    return best.stream().findFirst();
  }

  /** Cheapest first until the pod fits, then every victim it fits without is spared. */
  private List<Candidate> greedy() {
    List<Candidate> set = new ArrayList<>();
    for (Candidate candidate : eligible) {
      set.add(candidate);
      if (fitsWithout(set)) {
        break;
      }
    }
    for (int i = set.size() - 1; i >= 0; i--) {
      List<Candidate> spared = new ArrayList<>(set);
      spared.remove(i);
      if (fitsWithout(spared)) {
        set = spared;
      }
    }
    return List.copyOf(set);
  }

  /** Lower total priority, then less total work lost. */
  private static boolean cheaper(List<Candidate> a, List<Candidate> b) {
    long byPriority = priorities(a) - priorities(b);
    if (byPriority != 0) {
      return byPriority < 0;
    }
    return running(a).compareTo(running(b)) < 0;
  }

  private static long priorities(List<Candidate> set) {
    return set.stream().mapToLong(Candidate::priority).sum();
  }

  private static Duration running(List<Candidate> set) {
    return set.stream().map(Candidate::running).reduce(Duration.ZERO, Duration::plus);
  }

  private boolean fitsWithout(List<Candidate> victims) {
    NodeState after = node;
    for (Candidate victim : victims) {
      after = Ledger.without(after, victim.plan());
    }
    return PlacementEngine.fit(preemptor, host, after, context) instanceof NodeFit.Fits;
  }
}
