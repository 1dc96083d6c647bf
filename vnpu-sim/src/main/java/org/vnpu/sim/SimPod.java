package org.vnpu.sim;

import java.util.List;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.fragmentation.WorkloadShape;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.PodOptions;
import org.vnpu.core.request.PodRequest;

/**
 * One pod of a simulated workload.
 *
 * @param request what it asks of the engine
 * @param host the host CPU and memory it requests
 * @param timing when it arrives and leaves; null in workloads without times (arrivals only)
 */
public record SimPod(PodRequest request, HostResources host, Timing timing) {

  /**
   * When a pod arrives and leaves, in seconds from the start of the workload.
   *
   * @param arrival when it arrives
   * @param departure when it leaves; null when it stays
   */
  public record Timing(double arrival, Double departure) {}

  /** A pod of a workload without times. */
  public SimPod(PodRequest request, HostResources host) {
    this(request, host, null);
  }

  /** A pod with one container, or none when {@code count} is 0 (host resources only). */
  public static SimPod of(
      String name, ContainerRequest container, PodOptions options, HostResources host) {
    List<ContainerRequest> containers = container.count() == 0 ? List.of() : List.of(container);
    return new SimPod(new PodRequest("sim", name, name, options, containers), host);
  }

  /** The same pod under another name, for workloads that repeat pods. */
  public SimPod named(String name) {
    PodRequest r = request;
    return new SimPod(
        new PodRequest(r.namespace(), name, name, r.options(), r.containers()), host, timing);
  }

  public String name() {
    return request.name();
  }

  /** Chip compute it asks for, in percent of one chip: a whole card is 100 per chip. */
  public long computePercent() {
    return request.computePercent();
  }

  /** Its shape, as the fragmentation measure sees it (the first container's vNPUs). */
  public WorkloadShape shape() {
    if (request.containers().isEmpty()) {
      return new WorkloadShape(0, 0, null, ChipTypes.ANY, host.cpuMilli());
    }
    ContainerRequest c = request.containers().get(0);
    return new WorkloadShape(c.count(), c.cores(), c.memoryMiB(), c.chipTypes(), host.cpuMilli());
  }
}
