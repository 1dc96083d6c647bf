package org.vnpu.sandbox;

import java.time.Duration;
import java.util.List;
import org.vnpu.api.SplitMode;
import org.vnpu.scheduler.RebalanceMode;
import org.vnpu.scheduler.RebalanceSettings;

/** The cluster {@code vnpu demo} starts: its nodes, its DRA nodes and its rebalancer. */
public final class DemoCluster {

  private DemoCluster() {}

  /**
   * The demo's rebalancer: it carries plans out, for pods pending 3 s, a pass a second, and may
   * move 3 pods of one owner and node per pass; otherwise the chart's defaults.
   */
  public static final RebalanceSettings REBALANCING = demoRebalancing(RebalanceSettings.defaults());

  private static RebalanceSettings demoRebalancing(RebalanceSettings defaults) {
    return new RebalanceSettings(
        RebalanceMode.EXECUTE,
        Duration.ofSeconds(1),
        Duration.ofSeconds(3),
        defaults.movableBelow(),
        defaults.movesPerPlan(),
        defaults.evictionsPerInterval(),
        defaults.movesPerPlan(),
        defaults.movesPerPlan(),
        defaults.cooldown(),
        defaults.marks(),
        defaults.hotFor(),
        Duration.ofMinutes(1));
  }

  /** The demo's DRA nodes: two of two 910B3 each, offered as quarters. */
  public static final List<NodeSpec> DRA_NODES = DraScenario.NODES;

  /**
   * The demo's cluster: an Atlas 800I A2 for inference and one for training (8× 910B3 each, soft),
   * an Atlas 300I Duo pair (4× 310P3, hard), and a mixed node (2× 910B3 and 2× 310P3, soft) whose
   * first chip carries the die ID {@code deploy/examples/die-pin.yaml} pins.
   */
  public static final List<NodeSpec> NODES =
      List.of(
          NodeSpec.uniform("a2-infer", "Atlas 800I A2, 8x 910B3", SplitMode.SOFT, "910B3", 8),
          NodeSpec.uniform("a2-train", "Atlas 800I A2, 8x 910B3", SplitMode.SOFT, "910B3", 8),
          NodeSpec.uniform("duo-hard", "2x Atlas 300I Duo, 4x 310P3", SplitMode.HARD, "310P3", 4),
          new NodeSpec(
              "mixed",
              "910B3 and 310P3 cards in one server",
              SplitMode.SOFT,
              List.of(
                  new NodeSpec.Chip("910B3", "0A1B2C3D-00000000-00000000-00000000-00000001"),
                  new NodeSpec.Chip("910B3", null),
                  new NodeSpec.Chip("310P3", null),
                  new NodeSpec.Chip("310P3", null))));
}
