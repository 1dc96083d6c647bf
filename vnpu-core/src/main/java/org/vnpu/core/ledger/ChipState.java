package org.vnpu.core.ledger;

import org.vnpu.core.inventory.Chip;

/**
 * One chip and what is in use on it. Immutable; {@link #plus} and {@link #minus} return new states.
 *
 * @param chip the chip
 * @param memoryUsedMiB device memory reserved
 * @param corePercentUsed AI Core percent reserved by soft shares
 * @param aiCoresUsed AI Cores taken by hard-mode templates
 * @param aiCpusUsed AI CPUs taken by hard-mode templates
 * @param shares vNPUs on the chip
 * @param exclusive whether a whole-card vNPU owns the chip
 */
public record ChipState(
    Chip chip,
    long memoryUsedMiB,
    int corePercentUsed,
    int aiCoresUsed,
    int aiCpusUsed,
    int shares,
    boolean exclusive) {

  /** The chip with nothing in use. */
  public static ChipState idle(Chip chip) {
    return new ChipState(chip, 0, 0, 0, 0, 0, false);
  }

  public long freeMemoryMiB() {
    return chip.memoryMiB() - memoryUsedMiB;
  }

  public int freeCorePercent() {
    return 100 - corePercentUsed;
  }

  /**
   * The share of the chip's compute not yet reserved, 0..100: soft shares reserve AI Core percent,
   * hard templates reserve AI Cores, a whole card reserves everything.
   */
  public double freeComputePercent() {
    if (exclusive) {
      return 0;
    }
    double hardUsed =
        aiCoresUsed == 0 || chip.aiCores() == 0 ? 0 : aiCoresUsed * 100.0 / chip.aiCores();
    return 100.0 - Math.max(corePercentUsed, hardUsed);
  }

  /**
   * Whether {@code demand} fits beside what is in use, with at most {@code maxShares} vNPUs. Health
   * is not checked here: an allocation made before a chip turned unhealthy still counts.
   */
  public boolean fits(ChipDemand demand, int maxShares) {
    if (demand.exclusive()) {
      return fitsWholeCard();
    }
    return fitsShare(demand.memoryMiB(), demand.corePercent(), maxShares)
        && aiCoresUsed + demand.aiCores() <= chip.aiCores()
        && (chip.aiCpus() == 0 || aiCpusUsed + demand.aiCpus() <= chip.aiCpus());
  }

  /**
   * Whether no vNPU of any kind can go on the chip, on a node that allows {@code maxShares} per
   * chip: it is unhealthy, a whole card owns it, or it holds vNPUs and no more may join them.
   */
  public boolean takesNoVnpu(int maxShares) {
    return !chip.healthy() || exclusive || (shares > 0 && shares >= maxShares);
  }

  /** Whether a whole card can take the chip: nothing is in use. */
  public boolean fitsWholeCard() {
    return !exclusive && shares == 0;
  }

  /**
   * Whether a soft share of this memory and AI Core percent fits; {@link #fits} without objects.
   */
  public boolean fitsShare(long memoryMiB, int corePercent, int maxShares) {
    return !exclusive
        && shares < maxShares
        && memoryMiB <= freeMemoryMiB()
        && corePercent <= freeCorePercent();
  }

  public ChipState plus(ChipDemand demand) {
    return new ChipState(
        chip,
        memoryUsedMiB + demand.memoryMiB(),
        corePercentUsed + demand.corePercent(),
        aiCoresUsed + demand.aiCores(),
        aiCpusUsed + demand.aiCpus(),
        shares + 1,
        exclusive || demand.exclusive());
  }

  public ChipState minus(ChipDemand demand) {
    return new ChipState(
        chip,
        memoryUsedMiB - demand.memoryMiB(),
        corePercentUsed - demand.corePercent(),
        aiCoresUsed - demand.aiCores(),
        aiCpusUsed - demand.aiCpus(),
        shares - 1,
        exclusive && !demand.exclusive());
  }

  /**
   * Whether the two chips have the same capacity, type and health and the same usage, so that any
   * placement decision treats them alike.
   */
  public boolean interchangeableWith(ChipState other) {
    return memoryUsedMiB == other.memoryUsedMiB
        && corePercentUsed == other.corePercentUsed
        && aiCoresUsed == other.aiCoresUsed
        && aiCpusUsed == other.aiCpusUsed
        && shares == other.shares
        && exclusive == other.exclusive
        && chip.memoryMiB() == other.chip.memoryMiB()
        && chip.aiCores() == other.chip.aiCores()
        && chip.aiCpus() == other.chip.aiCpus()
        && chip.healthy() == other.chip.healthy()
        && chip.model().name().equals(other.chip.model().name())
        && chip.interconnectGroup().equals(other.chip.interconnectGroup());
  }
}
