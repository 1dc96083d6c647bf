package org.vnpu.core.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.fragmentation.FragmentationMeter;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.core.fragmentation.WorkloadShape;
import org.vnpu.core.inventory.ChipSupply;
import org.vnpu.core.inventory.NodeInventory;
import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.policy.Policies;
import org.vnpu.core.request.ContainerSpec;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;
import org.vnpu.core.request.RequestParser;

/** Nodes, pods and contexts for engine tests. */
public final class Fixtures {

  public static final Instant NOW = Instant.parse("2026-11-29T15:00:00Z");
  public static final ChipCatalog CATALOG = ChipCatalog.builtIn();
  private static final RequestParser PARSER = new RequestParser(CATALOG);

  /**
   * A mix of shares and whole cards, each with the host CPU it asks, so that fragmentation-aware
   * placement has work to do wherever host resources are tracked.
   */
  public static final WorkloadMix SHARES_AND_WHOLE_CARDS =
      WorkloadMix.typical(sharesAndWholeCards(), 1.0, 1);

  /**
   * {@link #SHARES_AND_WHOLE_CARDS}, with shares and whole cards that accept only 910B2 chips as
   * often: where a cluster has as many 910B2 chips as others, or fewer, 910B2 is a scarce type.
   */
  public static final WorkloadMix WITH_SCARCE_TYPE = withScarceType();

  private static List<WorkloadShape> sharesAndWholeCards() {
    return List.of(
        new WorkloadShape(1, 25, 16_384L, ChipTypes.ANY, 4000),
        new WorkloadShape(1, 50, 8192L, ChipTypes.ANY, 8000),
        new WorkloadShape(1, 10, 4096L, ChipTypes.ANY, 2000),
        new WorkloadShape(1, 100, null, ChipTypes.ANY, 12_000),
        new WorkloadShape(2, 100, null, ChipTypes.ANY, 24_000));
  }

  private static WorkloadMix withScarceType() {
    List<WorkloadShape> shapes = new ArrayList<>(sharesAndWholeCards());
    shapes.add(new WorkloadShape(1, 25, 16_384L, ChipTypes.of("910B2"), 4000));
    shapes.add(new WorkloadShape(1, 100, null, ChipTypes.of("910B2"), 12_000));
    return WorkloadMix.typical(shapes, 1.0, 1);
  }

  private Fixtures() {}

  /** A node of {@code chips} chips of one type, die IDs {@code <name>-d<i>}. */
  public static NodeInventory node(
      String name, String chipType, int chips, SplitMode mode, int maxShares) {
    List<RegisteredChip> registered = new ArrayList<>();
    long memory = CATALOG.find(chipType).orElseThrow().memoryMiB();
    for (int i = 0; i < chips; i++) {
      registered.add(new RegisteredChip(i, name + "-d" + i, chipType, memory, 0, 0, true, 0, ""));
    }
    return NodeInventory.from(name, new NodeRegistration(mode, maxShares, registered), CATALOG)
        .orElseThrow();
  }

  public static NodeInventory node(String name, String chipType, int chips) {
    return node(name, chipType, chips, SplitMode.SOFT, 20);
  }

  /**
   * Free host resources drawn from {@code random}: untracked one time in four, else up to 64 cores.
   */
  public static HostResources randomHostFree(Random random) {
    return random.nextInt(4) == 0
        ? HostResources.UNTRACKED
        : new HostResources(random.nextInt(64_000), 1 << 20);
  }

  /** Per chip of {@code chips}, up to three shares of random memory and AI Core. */
  public static List<List<ChipDemand>> randomShares(Random random, int chips) {
    int[] cores = {0, 5, 10, 25, 30, 50};
    long[] memory = {0L, 2048L, 8192L, 16_384L, 30_000L};
    List<List<ChipDemand>> shares = new ArrayList<>();
    for (int c = 0; c < chips; c++) {
      List<ChipDemand> onChip = new ArrayList<>();
      for (int s = random.nextInt(4); s > 0; s--) {
        onChip.add(
            new ChipDemand(
                memory[random.nextInt(memory.length)],
                cores[random.nextInt(cores.length)],
                0,
                0,
                false));
      }
      shares.add(onChip);
    }
    return shares;
  }

  /** {@code node} idle, with {@code shares} on its chips and {@code hostFree} left. */
  public static NodeState used(
      NodeInventory node, List<List<ChipDemand>> shares, HostResources hostFree) {
    NodeState idle = NodeState.idle(node, hostFree, NOW);
    List<ChipState> chips = new ArrayList<>(idle.chips());
    for (int c = 0; c < chips.size(); c++) {
      for (ChipDemand demand : shares.get(c)) {
        chips.set(c, chips.get(c).plus(demand));
      }
    }
    return idle.withChips(chips, hostFree);
  }

  /** A ledger of these nodes, all with a fresh heartbeat and untracked host resources. */
  public static Ledger ledger(NodeInventory... nodes) {
    Ledger ledger = new Ledger();
    for (NodeInventory node : nodes) {
      ledger.putNode(node, HostResources.UNTRACKED);
      ledger.heartbeat(node.node(), NOW);
    }
    return ledger;
  }

  public static PlacementContext context() {
    return context(WorkloadMix.EMPTY);
  }

  public static PlacementContext context(WorkloadMix mix) {
    return context(mix, ChipSupply.UNKNOWN);
  }

  /** A context whose fragmentation measure weighs {@code mix} against {@code supply}. */
  public static PlacementContext context(WorkloadMix mix, ChipSupply supply) {
    return new PlacementContext(
        NOW, Duration.ofSeconds(60), Policies.asRequested(), new FragmentationMeter(mix, supply));
  }

  /** A one-container pod with these limits ({@code key=value}) and annotations. */
  public static PodRequest pod(String uid, Map<String, String> annotations, String... limits) {
    return pod(uid, annotations, List.of(container("main", limits)));
  }

  public static PodRequest pod(
      String uid, Map<String, String> annotations, List<ContainerSpec> containers) {
    return PARSER
        .parse(new PodManifest("default", uid, uid, annotations, List.of(), containers))
        .orElseThrow();
  }

  public static ContainerSpec container(String name, String... limits) {
    Map<String, String> map = new LinkedHashMap<>();
    for (String limit : limits) {
      String[] kv = limit.split("=", 2);
      map.put(kv[0].contains("/") ? kv[0] : "huawei.com/vnpu-" + kv[0], kv[1]);
    }
    return new ContainerSpec(name, map, Map.of());
  }

  /** Places the pod with the ledger's current nodes and applies the plan; the decision. */
  public static Decision placeAndApply(Ledger ledger, PodRequest pod, PlacementContext context) {
    Decision decision = PlacementEngine.place(pod, HostResources.NONE, ledger.nodes(), context);
    if (decision instanceof Decision.Placed placed && !ledger.apply(placed.plan())) {
      throw new AssertionError("the ledger refused the engine's plan " + placed.plan());
    }
    return decision;
  }
}
