package org.vnpu.scheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
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
 * (ADR 0008, ADR 0024). Not thread-safe: the scheduler's state guards it.
 */
final class ObservedMix {

  private static final int OBSERVED_SHAPES = 1000;

  private final Deque<WorkloadShape> shapes = new ArrayDeque<>();
  private FragmentationMeter meter = new FragmentationMeter(WorkloadMix.EMPTY);

  FragmentationMeter meter() {
    return meter;
  }

  /** Keeps the pod's shape, forgetting the oldest beyond the last {@value #OBSERVED_SHAPES}. */
  void observe(PodRequest request, HostResources host, ChipSupply supply) {
    ContainerRequest first = request.containers().get(0);
    shapes.addLast(
        new WorkloadShape(
            first.count(), first.cores(), first.memoryMiB(), first.chipTypes(), host.cpuMilli()));
    if (shapes.size() > OBSERVED_SHAPES) {
      shapes.removeFirst();
    }
    meter = new FragmentationMeter(WorkloadMix.typical(new ArrayList<>(shapes), 0.9, 1), supply);
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
