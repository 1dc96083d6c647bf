package org.vnpu.core.fragmentation;

import org.vnpu.core.chip.ChipTypes;

/**
 * The shape of a typical pod: how many vNPUs of what size, on which chip type, with how much host
 * CPU.
 *
 * @param count vNPUs (each on its own chip); 0 for a pod without vNPUs
 * @param corePercent AI Core percent per vNPU; 100 for whole cards, 0 for best-effort
 * @param memoryMiB device memory per vNPU; null for the whole chip's
 * @param chipTypes the chip types it may use
 * @param cpuMilli host CPU it needs
 */
public record WorkloadShape(
    int count, int corePercent, Long memoryMiB, ChipTypes chipTypes, long cpuMilli) {}
