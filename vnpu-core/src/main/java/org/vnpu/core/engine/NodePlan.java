package org.vnpu.core.engine;

import java.util.ArrayList;
import java.util.List;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.inventory.Chip;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.PodRequest;

/**
 * The chips a pod would take on one node: cheap to build for every candidate node; only the chosen
 * one becomes an {@link AllocationPlan}.
 *
 * @param node the node as it was when planned
 * @param steps one per vNPU, in container order
 * @param host host resources the pod takes
 */
public record NodePlan(NodeState node, List<Step> steps, HostResources host) {

  /**
   * One vNPU on one chip.
   *
   * @param container index of the container in the request
   * @param position position of the chip in the node's chip list
   * @param demand what it takes from the chip
   * @param template hard-mode template; null otherwise
   */
  public record Step(int container, int position, ChipDemand demand, String template) {}

  /** The node's chips with this plan applied. */
  public ChipState[] chipsAfter() {
    ChipState[] chips = node.chips().toArray(new ChipState[0]);
    for (Step step : steps) {
      chips[step.position()] = chips[step.position()].plus(step.demand());
    }
    return chips;
  }

  /** The node's free host resources with this plan applied. */
  public HostResources hostAfter() {
    return node.hostFree().minus(host);
  }

  /** The allocation for {@code request}, as the scheduler writes it. */
  public AllocationPlan toAllocationPlan(PodRequest request) {
    List<ContainerAllocation> containers = new ArrayList<>();
    for (int c = 0; c < request.containers().size(); c++) {
      ContainerRequest container = request.containers().get(c);
      List<VnpuAssignment> vnpus = new ArrayList<>();
      for (Step step : steps) {
        if (step.container() == c) {
          vnpus.add(assignment(container, step));
        }
      }
      containers.add(new ContainerAllocation(container.name(), container.init(), vnpus));
    }
    return new AllocationPlan(
        new PodAllocation(request.uid(), node.name(), containers, request.options().offline()),
        host);
  }

  private VnpuAssignment assignment(ContainerRequest container, Step step) {
    Chip chip = node.chips().get(step.position()).chip();
    SplitMode mode = node.inventory().splitMode();
    boolean whole = step.demand().exclusive();
    return new VnpuAssignment(
        chip.index(),
        chip.dieId(),
        chip.model().name(),
        step.demand().memoryMiB(),
        container.cores(),
        mode,
        whole,
        whole || mode == SplitMode.HARD ? null : container.policy(),
        step.template());
  }
}
