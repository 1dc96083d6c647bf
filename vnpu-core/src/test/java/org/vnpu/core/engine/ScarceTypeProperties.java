package org.vnpu.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
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
import org.vnpu.core.inventory.ChipSupply;
import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodRequest;

/**
 * Where the observed mix holds pods that accept only 910B2 chips, so that the cluster's 910B2 chips
 * are sought more than its others, a pod that accepts any type, placed fragmentation-aware, never
 * takes a 910B2 chip while a 910B3 chip would fit it equally well: every node of the cluster has a
 * twin of the other type in the same state, and the 910B2 twin is named first, so that a tie would
 * go to it.
 */
class ScarceTypeProperties {

  @Property(tries = 500)
  void aFlexiblePodLeavesTheScarceTypeToThePodsThatNeedIt(
      @ForAll("twinClusters") List<NodeState> nodes,
      @ForAll("flexiblePods") PodRequest pod,
      @ForAll("hostRequests") HostResources host) {
    PlacementContext context =
        Fixtures.context(
            Fixtures.WITH_SCARCE_TYPE,
            ChipSupply.of(nodes.stream().map(NodeState::inventory).toList()));

    if (PlacementEngine.place(pod, host, nodes, context) instanceof Decision.Placed placed) {
      String twin = "b-" + placed.plan().node().substring(2);
      assertThat(placed.plan().node())
          .as(
              "a twin of the 910B2 node it took, in the same state, fits the pod: %s against %s",
              fitOn(placed.plan().node(), pod, host, nodes, context),
              fitOn(twin, pod, host, nodes, context))
          .startsWith("b-");
    }
  }

  private static String fitOn(
      String name, PodRequest pod, HostResources host, List<NodeState> nodes, PlacementContext c) {
    NodeState node = nodes.stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    return PlacementEngine.fit(pod, host, node, c) instanceof NodeFit.Fits fits
        ? name + " " + fits.score() + " " + fits.plan().steps()
        : name + " does not fit";
  }

  @Provide
  Arbitrary<HostResources> hostRequests() {
    return new BoundProperties().hostRequests();
  }

  /** One to eight pairs of twins: a 910B2 node and a 910B3 node with the same shares and host. */
  @Provide
  Arbitrary<List<NodeState>> twinClusters() {
    return Combinators.combine(Arbitraries.integers().between(1, 8), Arbitraries.longs())
        .as(ScarceTypeProperties::twins);
  }

  private static List<NodeState> twins(int pairs, long seed) {
    Random random = new Random(seed);
    List<NodeState> nodes = new ArrayList<>();
    for (int n = 0; n < pairs; n++) {
      HostResources hostFree = Fixtures.randomHostFree(random);
      List<List<ChipDemand>> shares = Fixtures.randomShares(random, 4);
      nodes.add(
          Fixtures.used(Fixtures.node("a-" + n, "910B2", 4, SplitMode.SOFT, 4), shares, hostFree));
      nodes.add(
          Fixtures.used(Fixtures.node("b-" + n, "910B3", 4, SplitMode.SOFT, 4), shares, hostFree));
    }
    return nodes;
  }

  /**
   * Shares of one chip, or whole cards of one or two chips, of any chip type, that reserve AI Core:
   * a best-effort share takes no compute, scarce or not.
   */
  @Provide
  Arbitrary<PodRequest> flexiblePods() {
    return new BoundProperties()
        .limits()
        .filter(limits -> !List.of(limits).contains("cores=0"))
        .map(
            container ->
                Fixtures.pod(
                    "p",
                    Map.of(
                        "huawei.com/vnpu-pod-node-scheduler-policy", "fragmentation-aware",
                        "huawei.com/vnpu-pod-device-scheduler-policy", "fragmentation-aware"),
                    container));
  }
}
