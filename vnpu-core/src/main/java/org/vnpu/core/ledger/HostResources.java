package org.vnpu.core.ledger;

/**
 * Host CPU and memory, as free capacity of a node or as the demand of a pod. The production
 * scheduler leaves host resources to kube-scheduler and uses {@link #UNTRACKED}; the simulator
 * tracks them as kube-scheduler would.
 *
 * @param cpuMilli CPU in thousandths of a core
 * @param memoryMiB memory in MiB
 */
public record HostResources(long cpuMilli, long memoryMiB) {

  /** Capacity that never limits a placement. */
  public static final HostResources UNTRACKED = new HostResources(Long.MAX_VALUE, Long.MAX_VALUE);

  /** A demand of nothing. */
  public static final HostResources NONE = new HostResources(0, 0);

  public boolean covers(HostResources demand) {
    return cpuMilli >= demand.cpuMilli && memoryMiB >= demand.memoryMiB;
  }

  public HostResources minus(HostResources demand) {
    return this == UNTRACKED
        ? this
        : new HostResources(cpuMilli - demand.cpuMilli, memoryMiB - demand.memoryMiB);
  }

  public HostResources plus(HostResources demand) {
    return this == UNTRACKED
        ? this
        : new HostResources(cpuMilli + demand.cpuMilli, memoryMiB + demand.memoryMiB);
  }
}
