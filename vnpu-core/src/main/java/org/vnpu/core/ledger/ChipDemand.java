package org.vnpu.core.ledger;

/**
 * What one vNPU takes from one chip.
 *
 * @param memoryMiB device memory
 * @param corePercent AI Core percent reserved by a soft share (0 for best-effort and hard mode)
 * @param aiCores AI Cores of a hard-mode template (0 in soft mode)
 * @param aiCpus AI CPUs of a hard-mode template (0 in soft mode or when not tracked)
 * @param exclusive whether it takes the whole chip
 */
public record ChipDemand(
    long memoryMiB, int corePercent, int aiCores, int aiCpus, boolean exclusive) {}
