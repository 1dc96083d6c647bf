package org.vnpu.core.fragmentation;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.inventory.ChipSupply;

/**
 * The chip types a mix seeks more than the cluster has of them (ADR 0024): per type, how much more
 * than the least sought type the mix seeks it, each shape's share of the mix's compute spread over
 * the types it accepts in proportion to their chips, per chip of the type, relative to the
 * cluster's mean, times {@link #WEIGHT}. A mix whose shapes all accept every type seeks none more
 * than another: then {@link #none}. Immutable.
 */
public final class ScarceTypes {

  /**
   * How much a percent of compute taken from a chip of a scarce type weighs against a percent of
   * fragmentation. Measured on the typed openb traces (docs/benchmarks.md, "Typed workloads"):
   * weights of 0.5, 1, 2, 3 and 5 leave 9.45, 6.98, 5.00, 5.13 and 5.22 % unallocated on gpuspec33
   * and 4.18, 4.32, 4.30, 4.24 and 4.30 % on gpuspec10.
   */
  static final double WEIGHT = 2;

  private final Map<String, Double> scarcity;

  private ScarceTypes(Map<String, Double> scarcity) {
    this.scarcity = Map.copyOf(scarcity);
  }

  /** The scarce types of {@code supply} for {@code mix}. */
  public static ScarceTypes of(WorkloadMix mix, ChipSupply supply) {
    double demand = 0;
    for (WorkloadMix.Weighted shape : mix.shapes()) {
      demand += compute(shape);
    }
    long total = supply.total();
    if (demand == 0 || total == 0) {
      return new ScarceTypes(Map.of());
    }
    Map<String, Double> sought = new HashMap<>();
    supply.chipsByType().keySet().forEach(type -> sought.put(type, 0.0));
    for (WorkloadMix.Weighted shape : mix.shapes()) {
      ChipTypes types = shape.shape().chipTypes();
      long accepted = 0;
      for (Map.Entry<String, Long> type : supply.chipsByType().entrySet()) {
        accepted += types.accepts(type.getKey()) ? type.getValue() : 0;
      }
      double perChip = compute(shape) / demand * total / Math.max(1, accepted);
      sought.replaceAll((type, s) -> types.accepts(type) ? s + perChip : s);
    }
    double least = sought.values().stream().mapToDouble(Double::doubleValue).min().orElse(0);
    Map<String, Double> scarcity = new HashMap<>();
    sought.forEach(
        (type, s) -> {
          if (s > least) {
            scarcity.put(type, WEIGHT * (s - least));
          }
        });
    return new ScarceTypes(scarcity);
  }

  /** The compute a shape reserves, weighted by its probability; 0 without vNPUs. */
  private static double compute(WorkloadMix.Weighted weighted) {
    WorkloadShape shape = weighted.shape();
    return weighted.probability() * shape.count() * shape.corePercent();
  }

  /** Whether no type is scarcer than another. */
  public boolean none() {
    return scarcity.isEmpty();
  }

  /** The scarcity of {@code type}: 0 for the least sought type and for types the cluster lacks. */
  public double of(String type) {
    return scarcity.isEmpty() ? 0 : scarcity.getOrDefault(type, 0.0);
  }

  /**
   * The scarce types a pod that accepts {@code accepted} left to the pods that need them by taking
   * chips of the types {@code taken}: those it accepts that are scarcer than every type it took,
   * scarcest first.
   */
  public List<String> leftBy(ChipTypes accepted, Set<String> taken) {
    double took = taken.stream().mapToDouble(this::of).max().orElse(0);
    return scarcity.entrySet().stream()
        .filter(e -> e.getValue() > took && accepted.accepts(e.getKey()))
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .map(Map.Entry::getKey)
        .toList();
  }
}
