package org.vnpu.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.vnpu.api.SplitMode;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.engine.ChipScorer;
import org.vnpu.core.engine.Decision;
import org.vnpu.core.engine.Fixtures;
import org.vnpu.core.engine.NodeScorer;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.engine.ScorerRegistry;
import org.vnpu.core.inventory.Chip;
import org.vnpu.core.inventory.NodeInventory;
import org.vnpu.core.policy.Policies;
import org.vnpu.core.request.ContainerSpec;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodOptions;
import org.vnpu.core.request.PodRequest;
import org.vnpu.core.request.RequestParser;
import org.vnpu.core.validation.Validated;

class LedgerProperties {

  private static final RequestParser PARSER = new RequestParser(ChipCatalog.builtIn());

  /** One step of a random history. */
  sealed interface Step {}

  record Place(PodRequest pod) implements Step {}

  record Release(int which) implements Step {}

  record FlipHealth(int node, int chip) implements Step {}

  record Refresh(int node) implements Step {}

  @Property(tries = 300)
  void noHistoryOverCommitsAnyChip(@ForAll("histories") List<Step> history) {
    Cluster cluster = new Cluster();
    for (Step step : history) {
      cluster.run(step);
      for (NodeState node : cluster.ledger.nodes()) {
        for (ChipState chip : node.chips()) {
          assertThat(withinCapacity(chip, node.inventory().maxSharesPerChip()))
              .as("%s after %s", chip, step)
              .isTrue();
        }
      }
    }
  }

  @Property(tries = 200)
  void rebuildingFromTheAllocationsGivesTheSameLedger(@ForAll("histories") List<Step> history) {
    Cluster cluster = new Cluster();
    history.forEach(cluster::run);

    Ledger rebuilt = Cluster.ledgerOf(cluster.inventories);
    List<AllocationPlan> plans = new ArrayList<>(cluster.ledger.placements().values());
    java.util.Collections.reverse(plans);
    plans.forEach(plan -> assertThat(rebuilt.apply(plan)).as("re-apply %s", plan).isTrue());

    assertThat(List.copyOf(rebuilt.nodes())).isEqualTo(List.copyOf(cluster.ledger.nodes()));
  }

  @Property(tries = 200)
  void applyThenReleaseRestoresTheLedgerExactly(
      @ForAll("histories") List<Step> history, @ForAll("pods") PodRequest pod) {
    Cluster cluster = new Cluster();
    history.forEach(cluster::run);
    List<NodeState> before = List.copyOf(cluster.ledger.nodes());

    Decision decision =
        PlacementEngine.place(pod, HostResources.NONE, cluster.ledger.nodes(), Fixtures.context());
    if (decision instanceof Decision.Placed placed) {
      assertThat(cluster.ledger.apply(placed.plan())).isTrue();
      cluster.ledger.release(placed.plan().podUid());
    }

    assertThat(List.copyOf(cluster.ledger.nodes())).isEqualTo(before);
  }

  @Property(tries = 200)
  void changingHostCapacityKeepsTheAllocationsCharged(
      @ForAll("histories") List<Step> history,
      @ForAll("capacities") List<HostResources> capacities) {
    Cluster changed = new Cluster();
    Cluster registered = new Cluster();
    history.forEach(changed::run);
    history.forEach(registered::run);

    for (int i = 0; i < capacities.size(); i++) {
      NodeInventory inventory = changed.inventories.get(i % changed.inventories.size());
      changed.ledger.hostCapacity(inventory.node(), capacities.get(i));
      registered.ledger.putNode(inventory, capacities.get(i));
    }

    assertThat(List.copyOf(changed.ledger.nodes()))
        .isEqualTo(List.copyOf(registered.ledger.nodes()));
    NodeState unchanged = changed.ledger.nodes().iterator().next();
    changed.ledger.hostCapacity(unchanged.name(), unchanged.hostCapacity());
    assertThat(changed.ledger.node(unchanged.name()).orElseThrow())
        .as("the same capacity keeps the state, and what was derived from it")
        .isSameAs(unchanged);
  }

  @Property(tries = 200)
  void eachNodesPlacementsAreThoseChargedToIt(@ForAll("histories") List<Step> history) {
    Cluster cluster = new Cluster();
    history.forEach(cluster::run);

    for (NodeInventory inventory : cluster.inventories) {
      String node = inventory.node();
      assertThat(List.copyOf(cluster.ledger.placementsOn(node)))
          .as("placements on %s", node)
          .containsExactlyInAnyOrderElementsOf(
              cluster.ledger.placements().values().stream()
                  .filter(plan -> plan.node().equals(node))
                  .toList());
      NodeState before = cluster.ledger.node(node).orElseThrow();
      cluster.ledger.putNode(inventory, before.hostCapacity());
      assertThat(cluster.ledger.node(node).orElseThrow())
          .as("the same inventory again keeps the state, and what was derived from it")
          .isSameAs(before);
    }
  }

  @Provide
  Arbitrary<List<HostResources>> capacities() {
    return Arbitraries.oneOf(
            Arbitraries.just(HostResources.UNTRACKED),
            Arbitraries.longs().between(0, 96_000).map(cpu -> new HostResources(cpu, 1L << 20)))
        .list()
        .ofMaxSize(6);
  }

  /**
   * The table a ledger keeps follows every change: after each step of a history, its rows are the
   * ledger's nodes, and a decision read from it, with what one meter derived from its rows in
   * earlier steps, is the decision a table made afresh gives. Fails when a changed node's derived
   * row is not derived again.
   */
  @Property(tries = 300)
  void theLedgersTableDecidesAsAFreshOne(
      @ForAll("histories") List<Step> history,
      @ForAll("pods") PodRequest pod,
      @ForAll("hostRequests") HostResources host) {
    PlacementContext context = Fixtures.context(Fixtures.SHARES_AND_WHOLE_CARDS);
    Cluster cluster = new Cluster(context);
    for (Step step : history) {
      cluster.run(step);
      NodeTable kept = cluster.ledger.table();
      List<NodeState> rows = new ArrayList<>();
      for (int row = 0; row < kept.size(); row++) {
        rows.add(kept.node(row));
      }
      assertThat(rows).as("after %s", step).containsExactlyElementsOf(cluster.ledger.nodes());

      Decision fromKept = PlacementEngine.place(pod, host, kept, context);
      Decision fromFresh =
          PlacementEngine.place(pod, host, NodeTable.of(cluster.ledger.nodes()), context);
      assertThat(fromKept).as("after %s", step).isEqualTo(fromFresh);
    }
  }

  @Property(tries = 200)
  void theSameSnapshotAlwaysGivesTheSameDecision(
      @ForAll("histories") List<Step> history, @ForAll("pods") PodRequest pod) {
    Cluster cluster = new Cluster();
    history.forEach(cluster::run);
    List<NodeState> snapshot = List.copyOf(cluster.ledger.nodes());

    Decision first = PlacementEngine.place(pod, HostResources.NONE, snapshot, Fixtures.context());
    Decision second =
        PlacementEngine.place(pod, HostResources.NONE, List.copyOf(snapshot), Fixtures.context());

    assertThat(second).isEqualTo(first);
  }

  @Property(tries = 300)
  void skippingNodesByTheirBoundNeverChangesTheDecision(
      @ForAll("histories") List<Step> history,
      @ForAll("pods") PodRequest pod,
      @ForAll("hostRequests") HostResources host) {
    Cluster cluster = new Cluster();
    history.forEach(cluster::run);
    PlacementContext bounded = Fixtures.context(Fixtures.SHARES_AND_WHOLE_CARDS);
    PlacementContext unbounded =
        bounded.withScorers(
            new ScorerRegistry() {
              @Override
              public NodeScorer nodeScorer(PodOptions options) {
                return Policies.of(options.nodePolicy()).node()::score;
              }

              @Override
              public ChipScorer chipScorer(PodOptions options) {
                return Policies.of(options.devicePolicy()).chip();
              }
            });

    Decision pruned = PlacementEngine.place(pod, host, cluster.ledger.nodes(), bounded);
    Decision planned = PlacementEngine.place(pod, host, cluster.ledger.nodes(), unbounded);

    assertThat(pruned).isEqualTo(planned);
  }

  /**
   * A small heterogeneous cluster driven by random steps; its nodes' host CPU is tracked, and the
   * pods it places ask some.
   */
  private static final class Cluster {
    final List<NodeInventory> inventories =
        new ArrayList<>(
            List.of(
                Fixtures.node("soft-a", "910B3", 4, SplitMode.SOFT, 3),
                Fixtures.node("soft-b", "910B4", 2, SplitMode.SOFT, 4),
                Fixtures.node("hard", "310P3", 2, SplitMode.HARD, 7),
                Fixtures.node("ring", "910A", 8, SplitMode.SOFT, 2)));
    final Ledger ledger = ledgerOf(inventories);
    final PlacementContext context; // one for the whole history, as a scheduler keeps one meter
    int serial;

    Cluster() {
      this(Fixtures.context());
    }

    Cluster(PlacementContext context) {
      this.context = context;
    }

    /** The nodes with fresh heartbeats and their host capacity. */
    static Ledger ledgerOf(List<NodeInventory> inventories) {
      Ledger ledger = new Ledger();
      for (NodeInventory inventory : inventories) {
        ledger.putNode(inventory, hostCapacity(inventory));
        ledger.heartbeat(inventory.node(), Fixtures.NOW);
      }
      return ledger;
    }

    /** Host CPU from scarce to plenty, so that some placements strand chips; memory plenty. */
    static HostResources hostCapacity(NodeInventory inventory) {
      long cpu =
          switch (inventory.node()) {
            case "soft-a" -> 48_000;
            case "soft-b" -> 16_000;
            case "hard" -> 32_000;
            default -> 64_000;
          };
      return new HostResources(cpu, 1L << 20);
    }

    void run(Step step) {
      if (step instanceof Place place) {
        place(withUid(place.pod(), "pod-" + serial++));
      } else if (step instanceof Release release) {
        List<String> placed = new ArrayList<>(ledger.placements().keySet());
        if (!placed.isEmpty()) {
          java.util.Collections.sort(placed);
          ledger.release(placed.get(release.which() % placed.size()));
        }
      } else if (step instanceof FlipHealth flip) {
        flip(flip.node() % inventories.size(), flip.chip());
      } else if (step instanceof Refresh refresh) {
        NodeInventory inventory = inventories.get(refresh.node() % inventories.size());
        ledger.putNode(inventory, hostCapacity(inventory));
      }
    }

    private void place(PodRequest pod) {
      HostResources host = new HostResources(serial % 4 * 6000L, 0);
      Decision decision = PlacementEngine.place(pod, host, ledger.table(), context);
      if (decision instanceof Decision.Placed placed) {
        assertThat(ledger.apply(placed.plan())).as("ledger accepts %s", placed.plan()).isTrue();
      }
    }

    private void flip(int nodeIndex, int chipIndex) {
      NodeInventory node = inventories.get(nodeIndex);
      List<Chip> chips = new ArrayList<>(node.chips());
      int position = chipIndex % chips.size();
      Chip c = chips.get(position);
      chips.set(position, c.withHealth(!c.healthy()));
      NodeInventory updated =
          new NodeInventory(node.node(), node.splitMode(), node.maxSharesPerChip(), chips);
      inventories.set(nodeIndex, updated);
      ledger.putNode(updated, hostCapacity(updated));
    }
  }

  /** The invariant: usage within every capacity of the chip. */
  private static boolean withinCapacity(ChipState chip, int maxShares) {
    Chip c = chip.chip();
    return chip.memoryUsedMiB() >= 0
        && chip.memoryUsedMiB() <= c.memoryMiB()
        && chip.corePercentUsed() >= 0
        && chip.corePercentUsed() <= 100
        && chip.aiCoresUsed() <= c.aiCores()
        && (c.aiCpus() == 0 || chip.aiCpusUsed() <= c.aiCpus())
        && chip.shares() >= 0
        && chip.shares() <= maxShares
        && (!chip.exclusive() || chip.shares() == 1);
  }

  private static PodRequest withUid(PodRequest pod, String uid) {
    return new PodRequest(pod.namespace(), uid, uid, pod.options(), pod.containers());
  }

  @Provide
  Arbitrary<List<Step>> histories() {
    Arbitrary<Step> step =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(6, pods().map(Place::new)),
            net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(0, 50).map(Release::new)),
            net.jqwik.api.Tuple.of(
                1,
                Combinators.combine(
                        Arbitraries.integers().between(0, 3), Arbitraries.integers().between(0, 7))
                    .as(FlipHealth::new)),
            net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 3).map(Refresh::new)));
    return step.list().ofMaxSize(40);
  }

  @Provide
  Arbitrary<HostResources> hostRequests() {
    return Arbitraries.of(0L, 2000L, 8000L, 24_000L).map(cpu -> new HostResources(cpu, 0));
  }

  @Provide
  Arbitrary<PodRequest> pods() {
    Arbitrary<ContainerSpec> container =
        Combinators.combine(
                Arbitraries.of(1, 1, 1, 2, 4),
                Arbitraries.of("0", "10", "25", "50", "75", "100", ""),
                Arbitraries.of("", "", "1", "4", "16", "40"))
            .as(LedgerProperties::container);
    Arbitrary<Map<String, String>> annotations =
        Combinators.combine(
                Arbitraries.of("soft", "soft", "hard"),
                Arbitraries.of("binpack", "spread", "fragmentation-aware"),
                Arbitraries.of("binpack", "spread", "fragmentation-aware"),
                Arbitraries.of("low", "high"))
            .as(
                (mode, node, device, level) -> {
                  Map<String, String> map = new LinkedHashMap<>();
                  map.put("huawei.com/vnpu-mode", mode);
                  map.put("huawei.com/vnpu-pod-node-scheduler-policy", node);
                  map.put("huawei.com/vnpu-pod-device-scheduler-policy", device);
                  map.put("huawei.com/vnpu-hard-aicpu-level", level);
                  return map;
                });
    return Combinators.combine(annotations, container.list().ofMinSize(1).ofMaxSize(2))
        .as(LedgerProperties::parse)
        .filter(java.util.Objects::nonNull);
  }

  private static ContainerSpec container(int count, String cores, String memory) {
    Map<String, String> limits = new LinkedHashMap<>();
    limits.put("huawei.com/vnpu-number", String.valueOf(count));
    if (!cores.isEmpty()) {
      limits.put("huawei.com/vnpu-cores", cores);
    }
    if (!memory.isEmpty()) {
      limits.put("huawei.com/vnpu-memory.1Gi", memory);
    }
    return new ContainerSpec("c", limits, Map.of());
  }

  private static PodRequest parse(Map<String, String> annotations, List<ContainerSpec> containers) {
    List<ContainerSpec> named = new ArrayList<>();
    for (int i = 0; i < containers.size(); i++) {
      named.add(new ContainerSpec("c" + i, containers.get(i).limits(), Map.of()));
    }
    Validated<PodRequest> parsed =
        PARSER.parse(new PodManifest("default", "p", "p", annotations, List.of(), named));
    return parsed instanceof Validated.Valid<PodRequest> valid ? valid.value() : null;
  }
}
