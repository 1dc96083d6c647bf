package org.vnpu.sim.experiment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.RebalancePlanner;
import org.vnpu.core.engine.RebalancePlanner.Movable;
import org.vnpu.core.engine.RebalancePlanner.Move;
import org.vnpu.core.engine.RebalancePlanner.Plan;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.sim.SimPod;

/**
 * One run's rebalancing: plans within the budget accrued so far and carries them out on the run's
 * ledger. A pod's running time, the work a move loses, counts from its last placement in the
 * workload's time (seconds with times, arrivals without).
 */
final class Rebalancer {

  private record Running(SimPod pod, double since) {}

  private final Rebalancing settings;
  private final Ledger ledger;
  private final PlacementContext context;
  private final Map<String, Running> running = new HashMap<>();
  private int moves;

  Rebalancer(Rebalancing settings, Ledger ledger, PlacementContext context) {
    this.settings = settings;
    this.ledger = ledger;
    this.context = context;
  }

  void placed(SimPod pod, double now) {
    running.put(pod.request().uid(), new Running(pod, now));
  }

  void left(SimPod pod) {
    running.remove(pod.request().uid());
  }

  /** Moves made so far. */
  int moves() {
    return moves;
  }

  /**
   * Places {@code pod}, which fits nowhere as things stand, by moving others; the plan carried out.
   */
  Optional<Plan> place(SimPod pod, int arrivals, double now) {
    int allowed = Math.min(Rebalancing.MOVES_PER_PLAN, allowance(arrivals));
    if (allowed < 1) {
      return Optional.empty();
    }
    Optional<Plan> plan =
        RebalancePlanner.forPending(
                pod.request(), pod.host(), ledger.nodes(), movable(now), allowed, context)
            .filter(p -> !p.moves().isEmpty());
    plan.ifPresent(p -> carryOut(p, now));
    plan.ifPresent(p -> placeChecked(p.pending()));
    return plan;
  }

  /** Moves offline pods off hot nodes within the budget; the plan carried out. */
  Optional<Plan> cool(int arrivals, double now) {
    int allowed = allowance(arrivals);
    if (allowed < 1) {
      return Optional.empty();
    }
    Optional<Plan> plan =
        RebalancePlanner.cooling(ledger.nodes(), movable(now), settings.marks(), allowed, context);
    plan.ifPresent(p -> carryOut(p, now));
    return plan;
  }

  private int allowance(int arrivals) {
    return (int) ((long) arrivals * settings.budgetPer100() / 100) - moves;
  }

  private List<Movable> movable(double now) {
    List<Movable> pods = new ArrayList<>(running.size());
    running.forEach(
        (uid, pod) ->
            pods.add(
                new Movable(
                    ledger.placements().get(uid),
                    pod.pod().request(),
                    Duration.ofMillis(Math.round((now - pod.since()) * 1000)))));
    return pods;
  }

  private void carryOut(Plan plan, double now) {
    for (Move move : plan.moves()) {
      ledger.release(move.pod().podUid());
    }
    for (Move move : plan.moves()) {
      placeChecked(move.to());
      Running pod = running.get(move.pod().podUid());
      running.put(move.pod().podUid(), new Running(pod.pod(), now));
    }
    moves += plan.moves().size();
  }

  private void placeChecked(AllocationPlan plan) {
    if (!ledger.apply(plan)) {
      throw new IllegalStateException("the ledger refused a checked plan's placement " + plan);
    }
  }
}
