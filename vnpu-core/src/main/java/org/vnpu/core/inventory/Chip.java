package org.vnpu.core.inventory;

import org.vnpu.core.chip.ChipModel;

/**
 * One chip (die) of a node.
 *
 * @param index logic index on the node ({@code /dev/davinciN})
 * @param dieId die ID, unique in the cluster
 * @param model the catalog entry of its type
 * @param memoryMiB device memory the driver reports
 * @param aiCores AI Cores
 * @param aiCpus AI CPUs; 0 when not tracked
 * @param healthy whether the driver reports it healthy
 * @param numaNode NUMA node; -1 when unknown
 * @param interconnectGroup chips of one group share a fast interconnect
 */
public record Chip(
    int index,
    String dieId,
    ChipModel model,
    long memoryMiB,
    int aiCores,
    int aiCpus,
    boolean healthy,
    int numaNode,
    String interconnectGroup) {

  /** This chip as the driver reports it healthy or not. */
  public Chip withHealth(boolean health) {
    return new Chip(
        index, dieId, model, memoryMiB, aiCores, aiCpus, health, numaNode, interconnectGroup);
  }
}
