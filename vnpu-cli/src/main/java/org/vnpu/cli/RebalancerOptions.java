package org.vnpu.cli;

import java.time.Duration;
import org.vnpu.core.engine.Watermarks;
import org.vnpu.scheduler.RebalanceMode;
import org.vnpu.scheduler.RebalanceSettings;
import picocli.CommandLine.Option;

/** How the rebalancer plans and how much it may disturb (docs/rebalancing.md). */
final class RebalancerOptions {

  /** Reads {@code --rebalancer-mode}. */
  static final class ModeConverter extends WireValueConverter<RebalanceMode> {
    ModeConverter() {
      super(RebalanceMode.class);
    }
  }

  @Option(
      names = "--rebalancer-mode",
      paramLabel = "MODE",
      defaultValue = "dry-run",
      converter = ModeConverter.class,
      description =
          "off, dry-run (plans go to the log, Events and metrics; nothing is evicted) or execute"
              + " (default: ${DEFAULT-VALUE}).")
  RebalanceMode mode;

  @Option(
      names = "--rebalance-interval",
      paramLabel = "DURATION",
      defaultValue = "1m",
      converter = DurationConverter.class,
      description =
          "Time between passes; eviction limits count per interval (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(
      names = "--rebalance-pending-for",
      paramLabel = "DURATION",
      defaultValue = "2m",
      converter = DurationConverter.class,
      description =
          "A vNPU pod pending shorter than this is left to the schedulers (default:"
              + " ${DEFAULT-VALUE}).")
  Duration pendingFor;

  @Option(
      names = "--rebalance-movable-below-priority",
      paramLabel = "PRIORITY",
      defaultValue = "0",
      description =
          "Pods whose spec.priority is below this may move; offline pods always may (default:"
              + " ${DEFAULT-VALUE}).")
  int movableBelow;

  @Option(
      names = "--rebalance-moves-per-plan",
      paramLabel = "N",
      defaultValue = "3",
      description = "Pods one plan may move (default: ${DEFAULT-VALUE}).")
  int movesPerPlan;

  @Option(
      names = "--rebalance-evictions-per-interval",
      paramLabel = "N",
      defaultValue = "6",
      description = "Evictions per interval over all plans (default: ${DEFAULT-VALUE}).")
  int perInterval;

  @Option(
      names = "--rebalance-evictions-per-node",
      paramLabel = "N",
      defaultValue = "2",
      description = "Evictions per interval from one node (default: ${DEFAULT-VALUE}).")
  int perNode;

  @Option(
      names = "--rebalance-evictions-per-owner",
      paramLabel = "N",
      defaultValue = "1",
      description =
          "Evictions per interval of one owner's pods (ReplicaSet, StatefulSet, Job) (default:"
              + " ${DEFAULT-VALUE}).")
  int perOwner;

  @Option(
      names = "--rebalance-cooldown",
      paramLabel = "DURATION",
      defaultValue = "30m",
      converter = DurationConverter.class,
      description = "An owner whose pod moved is left alone this long (default: ${DEFAULT-VALUE}).")
  Duration cooldown;

  @Option(
      names = "--rebalance-high-water",
      paramLabel = "PERCENT",
      defaultValue = "85",
      description =
          "A node whose allocated AI Core stays above this for --rebalance-hot-for runs hot; its"
              + " offline pods move (default: ${DEFAULT-VALUE}).")
  double highWater;

  @Option(
      names = "--rebalance-low-water",
      paramLabel = "PERCENT",
      defaultValue = "50",
      description =
          "Only nodes below this take pods moved off hot nodes (default: ${DEFAULT-VALUE}).")
  double lowWater;

  @Option(
      names = "--rebalance-hot-for",
      paramLabel = "DURATION",
      defaultValue = "10m",
      converter = DurationConverter.class,
      description =
          "How long a node must run hot before pods move off it (default: ${DEFAULT-VALUE}).")
  Duration hotFor;

  RebalanceSettings settings() {
    for (int limit : new int[] {movesPerPlan, perInterval, perNode, perOwner}) {
      if (limit < 1) {
        throw new InputException(
            "--rebalance-moves-per-plan and the --rebalance-evictions-per-* limits must be at"
                + " least 1, got "
                + limit
                + " (use --rebalancer-mode off to stop rebalancing)");
      }
    }
    Watermarks marks;
    try {
      marks = new Watermarks(highWater, lowWater);
    } catch (IllegalArgumentException e) {
      throw new InputException(
          "--rebalance-high-water and --rebalance-low-water: " + e.getMessage());
    }
    return new RebalanceSettings(
        mode,
        interval,
        pendingFor,
        movableBelow,
        movesPerPlan,
        perInterval,
        perNode,
        perOwner,
        cooldown,
        marks,
        hotFor,
        RebalanceSettings.defaults().holdFor());
  }
}
