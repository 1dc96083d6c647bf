package org.vnpu.scheduler;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.core.fragmentation.FragmentationMeter;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.core.fragmentation.WorkloadShape;
import org.vnpu.core.inventory.ChipSupply;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.PodRequest;

/**
 * The shapes of the last pods placed, and the fragmentation measure that weighs placements by them
 * (ADR 0008, ADR 0024). The measure is built again only when the typical mix moves more than
 * {@value #DRIFT} from the one it was built on, or the chip supply changes: what it derives of each
 * node is kept with the node's state, so a new measure after every pod had every node worked out
 * again for the next (ADR 0029). Not thread-safe: the scheduler's state guards it.
 */
final class ObservedMix {

  private static final int OBSERVED_SHAPES = 1000;

  /** How far a typical shape's probability may move before the measure is built again. */
  static final double DRIFT = 0.01;

  private final Deque<WorkloadShape> shapes = new ArrayDeque<>();

  /** How many of {@link #shapes} are of each shape: kept as they come and go, not recounted. */
  private final Map<WorkloadShape, Integer> counts = new LinkedHashMap<>();

  private FragmentationMeter meter = new FragmentationMeter(WorkloadMix.EMPTY);
  private WorkloadMix meterMix = WorkloadMix.EMPTY;
  private ChipSupply meterSupply = ChipSupply.UNKNOWN;

  FragmentationMeter meter() {
    return meter;
  }

  /** The typical mix {@link #meter()} weighs placements by. */
  WorkloadMix mix() {
    return meterMix;
  }

  /** Keeps the pod's shape, forgetting the oldest beyond the last {@value #OBSERVED_SHAPES}. */
  void observe(PodRequest request, HostResources host, ChipSupply supply) {
    ContainerRequest first = request.containers().get(0);
    WorkloadShape shape =
        new WorkloadShape(
            first.count(), first.cores(), first.memoryMiB(), first.chipTypes(), host.cpuMilli());
    shapes.addLast(shape);
    counts.merge(shape, 1, Integer::sum);
    if (shapes.size() > OBSERVED_SHAPES) {
      counts.computeIfPresent(shapes.removeFirst(), (forgotten, n) -> n == 1 ? null : n - 1);
    }
    WorkloadMix typical = WorkloadMix.typical(counts, 0.9, 1);
    if (!supply.equals(meterSupply) || !typical.near(meterMix, DRIFT)) {
      meter = new FragmentationMeter(typical, supply);
      meterMix = typical;
      meterSupply = supply;
    }
  }

  /**
   * Where fragmentation-aware placed the pod off chip types scarcer than those it took, a clause of
   * its event naming them; else empty.
   */
  String leftScarce(PodRequest request, AllocationPlan plan) {
    if (request.options().nodePolicy() != PlacementPolicy.FRAGMENTATION_AWARE) {
      return "";
    }
    Set<String> taken = new HashSet<>();
    plan.allocation().containers().forEach(c -> c.vnpus().forEach(v -> taken.add(v.chipType())));
    List<String> left = meter.scarceTypes().leftBy(request.containers().get(0).chipTypes(), taken);
    return left.isEmpty()
        ? ""
        : "; left chip type(s) "
            + String.join(", ", left)
            + " to the pods that accept only them (scarce among the pods seen lately)";
  }
}
