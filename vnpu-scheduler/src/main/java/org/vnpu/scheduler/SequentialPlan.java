package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.engine.Decision;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;

/**
 * Where the scheduler would put pods that arrive one at a time with nothing in flight: the plan a
 * burst's placement is held against (docs/benchmarks.md). It is the scheduler's own state, fed the
 * nodes as its informer would be, and its own engine, policies and observed mix; each pod goes
 * where the engine ranks best and is charged before the next one is placed. No API server is
 * involved.
 */
public final class SequentialPlan {

  /**
   * What the plan came to.
   *
   * @param placed pods placed
   * @param chipsUsed chips holding at least one of their vNPUs
   */
  public record Result(int placed, int chipsUsed) {}

  private SequentialPlan() {}

  /**
   * Places {@code pods}, in their order, on {@code nodes} as the API server holds them (their vNPU
   * inventories published); a pod that fits nowhere is left out.
   *
   * @throws SchedulingException when a pod's vNPU request does not read
   */
  public static Result place(List<Node> nodes, List<Pod> pods, ChipCatalog catalog)
      throws SchedulingException {
    SchedulerState state =
        new SchedulerState(
            catalog, new PayloadCodec(), SchedulerSettings.defaults(), Clock.systemUTC());
    for (Node node : nodes) {
      state.cluster().nodeChanged(Fabric8Views.seen(node));
    }
    Set<String> chips = new HashSet<>();
    int placed = 0;
    for (Pod pod : pods) {
      PodManifest manifest = Fabric8Views.manifest(pod);
      PodRequest request = state.request(manifest);
      HostResources host = SchedulerState.hostRequest(manifest);
      Decision decision =
          PlacementEngine.place(request, host, state.cluster().ledger().table(), state.context());
      if (decision instanceof Decision.Placed chosen
          && state.cluster().ledger().apply(chosen.plan())) {
        state.observe(request, host);
        placed++;
        chosen
            .plan()
            .allocation()
            .containers()
            .forEach(
                container ->
                    container
                        .vnpus()
                        .forEach(vnpu -> chips.add(chosen.plan().node() + "/" + vnpu.chipIndex())));
      }
    }
    return new Result(placed, chips.size());
  }
}
