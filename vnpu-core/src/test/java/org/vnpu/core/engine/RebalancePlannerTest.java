package org.vnpu.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vnpu.core.engine.Fixtures.context;
import static org.vnpu.core.engine.Fixtures.ledger;
import static org.vnpu.core.engine.Fixtures.node;
import static org.vnpu.core.engine.Fixtures.pod;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.engine.RebalancePlanner.Movable;
import org.vnpu.core.engine.RebalancePlanner.Plan;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.request.PodRequest;

class RebalancePlannerTest {

  private static final PodRequest TWO_CARDS = pod("job", Map.of(), "number=2", "cores=100");

  private final Ledger ledger = ledger(node("n1", "910B3", 2), node("n2", "910B3", 2));
  private final List<Movable> movable = new ArrayList<>();

  @Test
  void aPodThatFitsAlreadyNeedsNoMove() {
    Optional<Plan> plan = plan(TWO_CARDS, 3);

    assertThat(plan.orElseThrow().moves()).isEmpty();
    assertThat(plan.get().pending().node()).isEqualTo("n1");
  }

  @Test
  void movesTheFewestPodsOffOneNodeSoThatAWholeCardJobFits() {
    run("a", "n1", 0, Duration.ofMinutes(1));
    run("b", "n1", 1, Duration.ofMinutes(1));
    run("c", "n2", 0, Duration.ofHours(5));

    Plan plan = plan(TWO_CARDS, 3).orElseThrow();

    assertThat(plan.moves()).extracting(m -> m.pod().podUid()).containsExactly("c");
    assertThat(plan.moves().get(0).to().node()).isEqualTo("n1");
    assertThat(plan.pending().node()).isEqualTo("n2");
  }

  @Test
  void amongEquallyManyMovesLosesTheLeastWork() {
    run("young", "n1", 0, Duration.ofMinutes(1));
    run("old", "n2", 0, Duration.ofHours(5));

    Plan plan = plan(TWO_CARDS, 1).orElseThrow();

    assertThat(plan.moves()).extracting(m -> m.pod().podUid()).containsExactly("young");
    assertThat(plan.workLost()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void onlyMovablePodsMoveAndTheMoveBudgetHolds() {
    run("a", "n1", 0, Duration.ofMinutes(1));
    run("b", "n1", 1, Duration.ofMinutes(1));
    Movable pinned = run("c", "n2", 0, Duration.ofMinutes(1));
    movable.remove(pinned);

    assertThat(plan(TWO_CARDS, 1)).isEmpty();
    assertThat(plan(TWO_CARDS, 2).orElseThrow().moves())
        .extracting(m -> m.pod().podUid())
        .containsExactlyInAnyOrder("a", "b");
  }

  @Test
  void aPodWithNowhereElseToGoIsNotMoved() {
    run("a", "n1", 0, Duration.ofMinutes(1), "cores=100");
    run("b", "n2", 0, Duration.ofMinutes(1), "cores=100");
    run("c", "n2", 1, Duration.ofMinutes(1), "cores=100");

    assertThat(plan(TWO_CARDS, 3)).isEmpty();
  }

  @Test
  void coolingMovesOfflinePodsFromAHotNodeToACoolOne() {
    Ledger three = ledger(node("n1", "910B3", 2), node("n2", "910B3", 2), node("n3", "910B3", 2));
    movable.add(running(three, "online", "n1", 0, Map.of(), "cores=60"));
    movable.add(running(three, "batch-1", "n1", 1, offline(), "cores=50"));
    movable.add(running(three, "batch-2", "n1", 0, offline(), "cores=20"));
    movable.add(running(three, "busy", "n2", 0, Map.of(), "cores=90"));

    Plan plan =
        RebalancePlanner.cooling(three.nodes(), movable, new Watermarks(60, 40), 5, context())
            .orElseThrow();

    assertThat(plan.moves()).extracting(m -> m.pod().podUid()).containsExactly("batch-1");
    assertThat(plan.moves().get(0).to().node()).isEqualTo("n3");
  }

  @Test
  void watermarksMustBeOrdered() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Watermarks(40, 60))
        .hasMessageContaining("0 <= low < high <= 100, got low 60.0, high 40.0");
  }

  private Optional<Plan> plan(PodRequest pending, int maxMoves) {
    return RebalancePlanner.forPending(
        pending, HostResources.NONE, ledger.nodes(), movable, maxMoves, context());
  }

  private Movable run(String uid, String node, int chip, Duration running, String... limits) {
    String[] shape = limits.length == 0 ? new String[] {"cores=30", "memory.1Gi=8"} : limits;
    PodRequest pod = pod(uid, Map.of(), withCount(shape));
    Movable placed = new Movable(pin(ledger, pod, node, chip), pod, running);
    movable.add(placed);
    return placed;
  }

  private static Movable running(
      Ledger ledger,
      String uid,
      String node,
      int chip,
      Map<String, String> annotations,
      String limit) {
    PodRequest pod = pod(uid, annotations, "number=1", limit, "memory.1Gi=4");
    return new Movable(pin(ledger, pod, node, chip), pod, Duration.ofMinutes(1));
  }

  /** Places the one-vNPU pod on {@code chip} of {@code node}. */
  private static AllocationPlan pin(Ledger ledger, PodRequest pod, String node, int chip) {
    NodeFit fit =
        PlacementEngine.fit(pod, HostResources.NONE, ledger.node(node).orElseThrow(), context());
    PodAllocation planned = ((NodeFit.Fits) fit).plan().toAllocationPlan(pod).allocation();
    List<ContainerAllocation> containers = new ArrayList<>();
    for (ContainerAllocation container : planned.containers()) {
      VnpuAssignment v = container.vnpus().get(0);
      VnpuAssignment moved =
          new VnpuAssignment(
              chip,
              node + "-d" + chip,
              v.chipType(),
              v.memoryMiB(),
              v.cores(),
              v.mode(),
              v.wholeCard(),
              v.policy(),
              v.template());
      containers.add(new ContainerAllocation(container.name(), container.init(), List.of(moved)));
    }
    AllocationPlan onChip =
        new AllocationPlan(
            new PodAllocation(planned.podUid(), node, containers, planned.offline()),
            HostResources.NONE);
    assertThat(ledger.apply(onChip)).isTrue();
    return onChip;
  }

  private static String[] withCount(String[] limits) {
    String[] all = new String[limits.length + 1];
    all[0] = "number=1";
    System.arraycopy(limits, 0, all, 1, limits.length);
    return all;
  }

  private static Map<String, String> offline() {
    return Map.of("huawei.com/vnpu-priority", "offline");
  }
}
