package org.vnpu.core.ledger;

import org.vnpu.api.payload.PodAllocation;

/**
 * A decided placement: the allocation the scheduler signs and writes, and the host resources the
 * ledger charges with it.
 *
 * @param allocation per container, per vNPU: chip, memory, cores, policy, mode, template
 * @param host host CPU and memory charged to the node
 */
public record AllocationPlan(PodAllocation allocation, HostResources host) {

  public String node() {
    return allocation.node();
  }

  public String podUid() {
    return allocation.podUid();
  }
}
