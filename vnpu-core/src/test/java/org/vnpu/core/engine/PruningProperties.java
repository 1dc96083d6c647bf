package org.vnpu.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.vnpu.api.SplitMode;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodRequest;

/**
 * The engine's pruning (bounds, coarse bounds) changes how much it reads, never what it decides: on
 * any cluster it places every pod on the same node and chips as a straightforward reference that
 * plans every node and keeps the best by the same rule.
 */
class PruningProperties {

  @Property(tries = 300)
  void theEngineDecidesAsPlanningEveryNode(
      @ForAll("clusters") List<NodeState> nodes,
      @ForAll("pods") PodRequest pod,
      @ForAll("hostRequests") HostResources host,
      @ForAll("contexts") PlacementContext context) {
    Decision engine = PlacementEngine.place(pod, host, nodes, context);
    Decision reference = reference(pod, host, nodes, context);

    if (reference instanceof Decision.Placed expected) {
      assertThat(engine).isInstanceOf(Decision.Placed.class);
      assertThat(((Decision.Placed) engine).plan()).isEqualTo(expected.plan());
    } else {
      assertThat(engine).isInstanceOf(Decision.Unschedulable.class);
    }
  }

  /**
   * Every node planned and scored; the best kept: higher by more than the tolerance, or tied and
   * named first.
   */
  private static Decision reference(
      PodRequest pod, HostResources host, List<NodeState> nodes, PlacementContext context) {
    NodeFit.Fits best = null;
    for (NodeState node : nodes) {
      if (PlacementEngine.fit(pod, host, node, context) instanceof NodeFit.Fits fits) {
        double by = best == null ? 0 : fits.score() - best.score();
        if (best == null
            || by > PlacementEngine.SCORE_TOLERANCE
            || (by >= -PlacementEngine.SCORE_TOLERANCE
                && node.name().compareTo(best.plan().node().name()) < 0)) {
          best = fits;
        }
      }
    }
    return best == null
        ? new Decision.Unschedulable(nodes.size(), Map.of())
        : new Decision.Placed(best.plan().toAllocationPlan(pod), best.score());
  }

  @Provide
  Arbitrary<HostResources> hostRequests() {
    return Arbitraries.of(0L, 2000L, 8000L, 24_000L).map(cpu -> new HostResources(cpu, 0));
  }

  @Provide
  Arbitrary<PlacementContext> contexts() {
    return new BoundProperties().contexts();
  }

  /**
   * Up to 40 nodes of four 910B3 or 910B2 chips with random shares and host CPU, named so that name
   * order and list order differ (ties break by name).
   */
  @Provide
  Arbitrary<List<NodeState>> clusters() {
    return Combinators.combine(Arbitraries.integers().between(1, 40), Arbitraries.longs())
        .as(PruningProperties::cluster);
  }

  private static List<NodeState> cluster(int size, long seed) {
    Random random = new Random(seed);
    List<NodeState> nodes = new ArrayList<>();
    for (int n = 0; n < size; n++) {
      HostResources hostFree = Fixtures.randomHostFree(random);
      String type = random.nextInt(3) == 0 ? "910B2" : "910B3";
      nodes.add(
          Fixtures.used(
              Fixtures.node("node-" + random.nextInt(1000), type, 4, SplitMode.SOFT, 4),
              Fixtures.randomShares(random, 4),
              hostFree));
    }
    Collections.shuffle(nodes, random);
    return nodes;
  }

  /** Shares of one chip, or whole cards of one or two chips, under every pair of policies. */
  @Provide
  Arbitrary<PodRequest> pods() {
    return new BoundProperties().pods();
  }
}
