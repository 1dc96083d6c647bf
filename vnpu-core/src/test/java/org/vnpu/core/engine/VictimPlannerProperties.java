package org.vnpu.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vnpu.core.engine.Fixtures.context;
import static org.vnpu.core.engine.Fixtures.ledger;
import static org.vnpu.core.engine.Fixtures.node;
import static org.vnpu.core.engine.Fixtures.placeAndApply;
import static org.vnpu.core.engine.Fixtures.pod;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.vnpu.api.Priority;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodRequest;

/**
 * Whatever runs on a node: every victim set the planner accepts is made of the node's offline pods
 * and leaves the preemptor able to fit (the engine plans it on the node without them), no smaller
 * set would do, and when it finds none, not even evicting every offline pod makes room.
 */
class VictimPlannerProperties {

  @Property(tries = 200)
  void acceptedVictimsAlwaysMakeRoomAndAreFewest(
      @ForAll @Size(max = 8) List<@IntRange(min = 0, max = 7) Integer> pods,
      @ForAll @IntRange(min = 1, max = 9) int wanted,
      @ForAll @IntRange(min = 1, max = 2) int chips) {
    Ledger ledger = ledger(node("n1", "910B3", chips));
    List<VictimPlanner.Candidate> candidates = new ArrayList<>();
    for (int i = 0; i < pods.size(); i++) {
      int shape = pods.get(i);
      boolean offline = shape % 2 == 0;
      PodRequest pod =
          pod(
              "p" + i,
              offline ? Map.of("huawei.com/vnpu-priority", "offline") : Map.of(),
              "number=1",
              "cores=" + (10 + 10 * shape),
              "memory.1Gi=" + (1 + 4 * shape));
      if (placeAndApply(ledger, pod, context()) instanceof Decision.Placed placed) {
        candidates.add(new VictimPlanner.Candidate(placed.plan(), -shape, Duration.ofMinutes(i)));
      }
    }
    PodRequest preemptor =
        pod("online", Map.of(), "number=1", "cores=" + 10 * wanted, "memory.1Gi=" + 4 * wanted);
    NodeState node = ledger.node("n1").orElseThrow();

    Optional<List<VictimPlanner.Candidate>> victims =
        VictimPlanner.victims(preemptor, HostResources.NONE, node, candidates, context());

    List<VictimPlanner.Candidate> offline =
        candidates.stream()
            .filter(c -> c.plan().allocation().priority() == Priority.OFFLINE)
            .toList();
    if (victims.isEmpty()) {
      assertThat(fitsWithout(preemptor, node, offline)).isFalse();
      return;
    }
    assertThat(offline).containsAll(victims.get());
    assertThat(fitsWithout(preemptor, node, victims.get())).isTrue();
    for (List<VictimPlanner.Candidate> smaller : subsets(offline, victims.get().size() - 1)) {
      assertThat(fitsWithout(preemptor, node, smaller))
          .as("%s is smaller than %s and fits", smaller, victims.get())
          .isFalse();
    }
  }

  private static boolean fitsWithout(
      PodRequest pod, NodeState node, List<VictimPlanner.Candidate> victims) {
    NodeState after = node;
    for (VictimPlanner.Candidate victim : victims) {
      after = Ledger.without(after, victim.plan());
    }
    return PlacementEngine.fit(pod, HostResources.NONE, after, context()) instanceof NodeFit.Fits;
  }

  /** Every subset of {@code all} of exactly {@code size} elements. */
  private static List<List<VictimPlanner.Candidate>> subsets(
      List<VictimPlanner.Candidate> all, int size) {
    List<List<VictimPlanner.Candidate>> subsets = new ArrayList<>();
    if (size < 0) {
      return subsets;
    }
    for (int mask = 0; mask < 1 << all.size(); mask++) {
      if (Integer.bitCount(mask) == size) {
        List<VictimPlanner.Candidate> subset = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
          if ((mask & 1 << i) != 0) {
            subset.add(all.get(i));
          }
        }
        subsets.add(subset);
      }
    }
    return subsets;
  }
}
