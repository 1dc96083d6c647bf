package org.vnpu.api.payload;

/**
 * One chip (die) of a node, as the device plugin publishes it.
 *
 * @param index the chip's logic index on the node (the N of {@code /dev/davinciN})
 * @param dieId the die ID reported by DCMI; unique in the cluster
 * @param chipType the catalog name of the chip, e.g. {@code 910B3}
 * @param memoryMiB device memory in MiB
 * @param aiCores AI Cores of the chip; 0 when unknown (legacy format), then the catalog's value
 * @param aiCpus AI CPUs of the chip; 0 when unknown, then the catalog's value
 * @param healthy whether the driver reports the chip healthy
 * @param numaNode NUMA node the chip hangs off; -1 when unknown
 * @param interconnectGroup chips with the same group share a fast interconnect (HCCS ring, full
 *     mesh, card die pair); empty when unknown, then derived from the catalog
 */
public record RegisteredChip(
    int index,
    String dieId,
    String chipType,
    long memoryMiB,
    int aiCores,
    int aiCpus,
    boolean healthy,
    int numaNode,
    String interconnectGroup) {

  public RegisteredChip {
    Checks.range(index, 0, 1023, "index");
    Checks.text(dieId, "dieId");
    Checks.text(chipType, "chipType");
    Checks.range(memoryMiB, 1, Long.MAX_VALUE, "memoryMiB");
    Checks.range(aiCores, 0, 1024, "aiCores");
    Checks.range(aiCpus, 0, 1024, "aiCpus");
    Checks.range(numaNode, -1, 1023, "numaNode");
    Checks.present(interconnectGroup, "interconnectGroup");
  }
}
