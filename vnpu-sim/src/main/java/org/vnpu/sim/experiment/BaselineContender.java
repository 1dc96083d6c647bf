package org.vnpu.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;
import org.vnpu.core.engine.NodeFit;
import org.vnpu.core.engine.NodePlan;
import org.vnpu.core.engine.NodeScorer;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.policy.Policies;
import org.vnpu.sim.SimPod;
import org.vnpu.sim.baseline.Baseline;

/**
 * A paper baseline behind kube-scheduler's selection: the engine's filter decides feasibility and
 * the chips, the baseline scores each feasible node with a whole number (min-max normalised when
 * the plugin does), and the top-scoring node wins; equal scores go to the first node in name order
 * or to a random one, as {@link TieBreak} says.
 */
final class BaselineContender implements Contender {

  /** Baselines score nodes themselves; the engine's node score is not used. */
  private static final NodeScorer UNUSED = (before, after, hostAfter, context) -> 0;

  private final Baseline baseline;
  private final Random random;
  private final TieBreak tieBreak;

  BaselineContender(Baseline baseline, Random random, TieBreak tieBreak) {
    this.baseline = baseline;
    this.random = random;
    this.tieBreak = tieBreak;
  }

  @Override
  public Optional<AllocationPlan> choose(SimPod pod, Ledger ledger, PlacementContext context) {
    PlacementContext chips = context.withScorers(Policies.fixed(UNUSED, baseline.chipScorer()));
    List<NodePlan> feasible = new ArrayList<>();
    List<Long> scores = new ArrayList<>();
    Function<NodeState, NodeFit> scoring =
        PlacementEngine.scoring(pod.request(), pod.host(), chips);
    for (NodeState node : ledger.nodes()) {
      if (scoring.apply(node) instanceof NodeFit.Fits fits) {
        feasible.add(fits.plan());
        scores.add(baseline.score(fits.plan(), pod, context));
      }
    }
    if (feasible.isEmpty()) {
      return Optional.empty();
    }
    if (baseline.normalizes()) {
      normalize(scores);
    }
    int best = 0;
    double bestKey = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < feasible.size(); i++) {
      double key = scores.get(i) + (tieBreak == TieBreak.RANDOM ? random.nextDouble() : 0);
      if (key > bestKey) {
        best = i;
        bestKey = key;
      }
    }
    return Optional.of(feasible.get(best).toAllocationPlan(pod.request()));
  }

  @Override
  public void placed(SimPod pod, AllocationPlan plan) {
    baseline.placed(pod, plan);
  }

  /** kube-scheduler's NormalizeScore as the artifact does it: integer min-max to 0..100. */
  private static void normalize(List<Long> scores) {
    long low = scores.stream().mapToLong(Long::longValue).min().orElse(0);
    long high = scores.stream().mapToLong(Long::longValue).max().orElse(0);
    for (int i = 0; i < scores.size(); i++) {
      scores.set(i, high == low ? 0 : (scores.get(i) - low) * 100 / (high - low));
    }
  }
}
