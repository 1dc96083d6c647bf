package org.vnpu.core.engine;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.SplitMode;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.ledger.NodeTable;
import org.vnpu.core.ledger.VnpuFit;
import org.vnpu.core.ledger.VnpuSizer;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.HandoutShape;
import org.vnpu.core.request.PodRequest;

/** Plans one pod on one node: node-level checks, then a chip for every vNPU. */
final class NodePlanner {

  /** What one pod's planning needs on every node, worked out once per pod. */
  static final class ForPod {
    private final PodRequest request;
    private final HostResources host;
    private final PlacementContext context;
    private final Instant heartbeatCutoff;
    private final boolean shares;
    private final boolean singleVnpu;
    private final NodeScorer nodeScorer;
    private final ChipScorer chipScorer;
    private final boolean sizedAlike;
    private final VnpuFit onlyVnpuFits;
    private final HandoutShape handoutShape;
    private final ContainerRequest[] containers;
    private final double maxComputeTaken;

    ForPod(PodRequest request, HostResources host, PlacementContext context) {
      this.request = request;
      this.host = host;
      this.context = context;
      this.heartbeatCutoff = context.now().minus(context.heartbeatTolerance());
      this.shares = request.containers().stream().anyMatch(c -> !c.wholeCard());
      this.singleVnpu = request.containers().stream().mapToInt(ContainerRequest::count).sum() == 1;
      this.handoutShape = HandoutShape.of(request);
      this.containers = request.containers().toArray(new ContainerRequest[0]);
      double compute = 0;
      for (ContainerRequest container : containers) {
        compute += container.count() * computeTaken(container);
      }
      this.maxComputeTaken = compute;
      this.nodeScorer = context.scorers().nodeScorer(request.options());
      this.chipScorer = context.scorers().chipScorer(request.options());
      this.sizedAlike = request.options().mode() == SplitMode.SOFT || !shares;
      ContainerRequest only =
          singleVnpu
              ? request.containers().stream().filter(c -> c.count() == 1).findFirst().orElseThrow()
              : null;
      this.onlyVnpuFits =
          only == null
              ? null
              : new VnpuFit(
                  only.wholeCard() || only.memoryMiB() == null ? 0 : only.memoryMiB(),
                  only.wholeCard() ? 0 : computeTaken(only),
                  !only.wholeCard()
                      && only.memoryMiB() != null
                      && only.chipTypes().any()
                      && request.options().dieId() == null,
                  (node, state) -> takes(only, node, state));
    }

    /**
     * A score that no plan of the pod on {@code node} exceeds (infinite when none is known), where
     * only whether it could beat {@code best} matters: the node scorer's coarse bound is asked
     * first, and when it already cannot win it is the answer (valid wherever the pod fits at all,
     * which is where it matters); otherwise the scorer's bound. With no {@code best}, the coarse
     * bound.
     */
    double bound(NodeTable nodes, int row, NodeFit.Fits best) {
      PlanLimits limits = limits(nodes, row);
      if (limits == null) {
        return Double.POSITIVE_INFINITY;
      }
      double coarse = nodeScorer.coarseBound(limits, context);
      return best != null && PlacementEngine.better(coarse, nodes.node(row), best)
          ? nodeScorer.bound(limits, context)
          : coarse;
    }

    /**
     * What any plan of the pod does to the node in {@code row} of {@code nodes}, read from the
     * table's columns, or null when that cannot be known without planning (the size of a hard-mode
     * share depends on the chip's state, its free AI CPUs) or there is nothing to know (a node
     * without chips).
     */
    PlanLimits limits(NodeTable nodes, int row) {
      int chips = nodes.chips(row);
      if (!sizedAlike || chips == 0) {
        return null;
      }
      double minGain = 0;
      double maxGain = 0;
      for (ContainerRequest container : containers) { // an array: no iterator per node
        // a vNPU raises the utilization of a chip with less memory more
        minGain += container.count() * utilizationGain(container, nodes.mostChipMemoryMiB(row));
        maxGain += container.count() * utilizationGain(container, nodes.leastChipMemoryMiB(row));
      }
      return new PlanLimits(
          nodes,
          row,
          nodes.hostFreeMinus(row, host),
          nodes.utilization(row),
          minGain / chips,
          maxGain / chips,
          maxComputeTaken,
          onlyVnpuFits);
    }

    /** Whether {@code node} can take the pod, with its plan and score or why not. */
    NodeFit fit(NodeState node) {
      return fit(node, true);
    }

    /**
     * As {@link #fit(NodeState)} without ranking: a fitting plan's score is NaN, and a pod of one
     * vNPU takes the first chip that holds it (which chip does not change whether the node fits).
     */
    NodeFit feasible(NodeState node) {
      return fit(node, false);
    }

    private NodeFit fit(NodeState node, boolean scored) {
      Rejection refused = nodeLevel(node);
      if (refused != null) {
        return new NodeFit.Rejected(refused);
      }
      NodePlanner planner = new NodePlanner(this, node, !scored && singleVnpu);
      for (int c = 0; c < request.containers().size(); c++) {
        Rejection rejected = planner.place(c);
        if (rejected != null) {
          return new NodeFit.Rejected(rejected);
        }
      }
      double score =
          scored ? nodeScorer.score(node, planner.working, planner.hostAfter, context) : Double.NaN;
      return new NodeFit.Fits(new NodePlan(node, List.copyOf(planner.steps), host), score);
    }

    /**
     * The size of one vNPU of {@code container} on {@code state}, or null when it cannot go there.
     */
    private VnpuSizer.Sized sized(
        ContainerRequest container, NodeState node, ChipState state, ChipDiagnosis diagnosis) {
      int unsuitable = unsuitable(container, state);
      if (unsuitable >= 0) {
        diagnosis.reached(unsuitable);
        return null;
      }
      VnpuSizer.Sized sized =
          VnpuSizer.size(
              state,
              node.inventory().splitMode(),
              container.cores(),
              container.memoryMiB(),
              container.policy(),
              request.options().aiCpuLevel());
      if (sized == null) {
        diagnosis.reached(ChipDiagnosis.TEMPLATE);
        return null;
      }
      if (!state.fits(sized.demand(), node.inventory().maxSharesPerChip())) {
        diagnosis.capacity(state, sized.demand(), node.inventory().maxSharesPerChip());
        return null;
      }
      return sized;
    }

    /**
     * Whether one vNPU of {@code container}, a soft share or a whole card, can go on {@code state}:
     * {@link #sized} without sizing, as bounds ask it of every node.
     */
    private boolean takes(ContainerRequest container, NodeState node, ChipState state) {
      if (unsuitable(container, state) >= 0) {
        return false;
      }
      if (container.wholeCard()) {
        return state.fitsWholeCard();
      }
      Long memory = container.memoryMiB();
      return state.fitsShare(
          memory == null ? state.chip().memoryMiB() : memory,
          computeTaken(container),
          node.inventory().maxSharesPerChip());
    }

    /**
     * The {@link ChipDiagnosis} stage at which {@code state}'s chip is refused for {@code
     * container} whatever its usage (type, die ID, health), or -1 when it is not.
     */
    private int unsuitable(ContainerRequest container, ChipState state) {
      ChipTypes types = container.chipTypes();
      if (!types.any() && !types.accepts(state.chip().model().name())) { // any: no model read
        return ChipDiagnosis.TYPE;
      }
      String dieId = request.options().dieId();
      if (dieId != null && !dieId.equals(state.chip().dieId())) {
        return ChipDiagnosis.DIE;
      }
      return state.chip().healthy() ? -1 : ChipDiagnosis.HEALTH;
    }

    private Rejection nodeLevel(NodeState node) {
      if (node.heartbeat() == null || node.heartbeat().isBefore(heartbeatCutoff)) {
        return Rejection.of(RejectKind.STALE_HEARTBEAT);
      }
      if (node.locks()
          .blocker(request.uid(), handoutShape.digest(), handoutShape.counts(), context.now())
          .isPresent()) {
        return Rejection.of(RejectKind.LOCKED);
      }
      SplitMode mode = node.inventory().splitMode();
      if (shares && mode != request.options().mode()) {
        return Rejection.of(RejectKind.MODE_MISMATCH, mode.wireName());
      }
      if (host.cpuMilli() > node.hostFree().cpuMilli()) {
        return Rejection.of(RejectKind.NOT_ENOUGH_HOST_CPU);
      }
      if (host.memoryMiB() > node.hostFree().memoryMiB()) {
        return Rejection.of(RejectKind.NOT_ENOUGH_HOST_MEMORY);
      }
      return null;
    }
  }

  /**
   * How much one vNPU of {@code container} raises the utilization of a chip with this much memory,
   * in soft mode or as a whole card (which takes only idle chips).
   */
  private static double utilizationGain(ContainerRequest container, long chipMemoryMiB) {
    if (container.wholeCard()) {
      return 100;
    }
    double memory =
        container.memoryMiB() == null ? 100 : container.memoryMiB() * 100.0 / chipMemoryMiB;
    return (computeTaken(container) + memory) / 2;
  }

  /**
   * The compute percent one vNPU of {@code container} reserves, in soft mode or as a whole card.
   */
  private static int computeTaken(ContainerRequest container) {
    return container.policy() == AiCorePolicy.BEST_EFFORT && !container.wholeCard()
        ? 0
        : container.cores();
  }

  private final ForPod pod;
  private final PodRequest request;
  private final NodeState node;
  private final PlacementContext context;
  private final ChipState[] working;
  private final HostResources hostAfter;
  private final ChipScorer device;
  private final List<NodePlan.Step> steps = new ArrayList<>();
  private final boolean firstFit;

  private NodePlanner(ForPod pod, NodeState node, boolean firstFit) {
    this.firstFit = firstFit;
    this.pod = pod;
    this.request = pod.request;
    this.node = node;
    this.context = pod.context;
    this.working = node.chips().toArray(new ChipState[0]);
    this.hostAfter = node.hostFree().minus(pod.host);
    this.device = pod.chipScorer;
  }

  /** Places every vNPU of container {@code c}; the rejection when one does not fit. */
  private Rejection place(int c) {
    ContainerRequest container = request.containers().get(c);
    boolean[] taken = new boolean[working.length];
    if (container.count() > 1 && container.wholeCard()) {
      preferOneInterconnectGroup(container, taken);
    }
    for (int k = 0; k < container.count(); k++) {
      ChipDiagnosis diagnosis = new ChipDiagnosis();
      int best = -1;
      double bestScore = Double.NEGATIVE_INFINITY;
      VnpuSizer.Sized bestSize = null;
      int[] scored = new int[working.length]; // the chips scored so far: the first scoredCount
      int scoredCount = 0;
      for (int i = 0; i < working.length; i++) {
        VnpuSizer.Sized sized = taken[i] ? null : pod.sized(container, node, working[i], diagnosis);
        if (sized == null || repeatsAnEarlierCandidate(i, scored, scoredCount)) {
          continue;
        }
        if (firstFit) {
          best = i;
          bestSize = sized;
          break;
        }
        scored[scoredCount++] = i;
        double score =
            device.score(new ChipCandidate(node, working, i, sized.demand(), hostAfter), context);
        if (score > bestScore) {
          best = i;
          bestScore = score;
          bestSize = sized;
        }
      }
      if (best < 0) {
        return k == 0
            ? diagnosis.rejection(container, request.options())
            : Rejection.of(RejectKind.NOT_ENOUGH_CHIPS, container.count(), k);
      }
      working[best] = working[best].plus(bestSize.demand());
      taken[best] = true;
      steps.add(new NodePlan.Step(c, best, bestSize.demand(), bestSize.template()));
    }
    return null;
  }

  /**
   * Whether a chip already scored for this vNPU (the first {@code scoredCount} of {@code scored})
   * is interchangeable with chip {@code i}: it scores the same under any policy, and the earlier
   * one wins ties, so chip {@code i} need not be scored.
   */
  private boolean repeatsAnEarlierCandidate(int i, int[] scored, int scoredCount) {
    for (int s = 0; s < scoredCount; s++) {
      if (working[scored[s]].interchangeableWith(working[i])) {
        return true;
      }
    }
    return false;
  }

  /**
   * A multi-chip whole-card container keeps to the smallest interconnect group that holds it, so
   * that its chips share HCCS and larger groups stay whole; chips of other groups are marked taken.
   * When no single group has enough idle chips, every group stays open.
   */
  private void preferOneInterconnectGroup(ContainerRequest container, boolean[] taken) {
    Map<String, List<Integer>> idleByGroup = new LinkedHashMap<>();
    ChipDiagnosis ignored = new ChipDiagnosis();
    for (int i = 0; i < working.length; i++) {
      if (pod.sized(container, node, working[i], ignored) != null) {
        idleByGroup
            .computeIfAbsent(working[i].chip().interconnectGroup(), g -> new ArrayList<>())
            .add(i);
      }
    }
    List<Integer> chosen = null;
    for (List<Integer> group : idleByGroup.values()) {
      if (group.size() >= container.count() && (chosen == null || group.size() < chosen.size())) {
        chosen = group;
      }
    }
    if (chosen == null) {
      return;
    }
    for (int i = 0; i < taken.length; i++) {
      taken[i] = !chosen.contains(i);
    }
  }
}
