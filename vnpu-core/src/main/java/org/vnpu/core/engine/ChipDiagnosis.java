package org.vnpu.core.engine;

import org.vnpu.core.ledger.ChipDemand;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.PodOptions;

/**
 * Why no chip of a node can take a vNPU: the reason of the chip that came closest, with the best
 * free memory or AI Core among the chips that failed there.
 */
final class ChipDiagnosis {

  static final int TYPE = 0;
  static final int DIE = 1;
  static final int HEALTH = 2;
  static final int TEMPLATE = 3;
  static final int IDLE = 4;
  static final int SHARES = 5;
  static final int MEMORY = 6;
  static final int CORES = 7;

  private int stage = -1;
  private long memoryNeed;
  private long bestFreeMemory;
  private long bestFreeCores;
  private int maxShares;

  void reached(int reached) {
    stage = Math.max(stage, reached);
  }

  /** Records why {@code demand} does not fit on {@code state}. */
  void capacity(ChipState state, ChipDemand demand, int maxSharesPerChip) {
    maxShares = maxSharesPerChip;
    if (demand.exclusive()) {
      reached(IDLE);
    } else if (!state.exclusive() && state.shares() >= maxSharesPerChip) {
      reached(SHARES);
    } else if (state.exclusive() || demand.memoryMiB() > state.freeMemoryMiB()) {
      reached(MEMORY);
      memoryNeed = demand.memoryMiB();
      bestFreeMemory = Math.max(bestFreeMemory, state.exclusive() ? 0 : state.freeMemoryMiB());
    } else {
      reached(CORES);
      bestFreeCores = Math.max(bestFreeCores, Math.round(state.freeComputePercent()));
    }
  }

  Rejection rejection(ContainerRequest container, PodOptions options) {
    return switch (stage) {
      case TYPE -> Rejection.of(RejectKind.CHIP_TYPE_NOT_FOUND, container.chipTypes().toString());
      case DIE -> Rejection.of(RejectKind.DIE_ID_NOT_FOUND, options.dieId());
      case HEALTH -> Rejection.of(RejectKind.UNHEALTHY);
      case TEMPLATE ->
          Rejection.of(
              RejectKind.NO_TEMPLATE_FITS,
              container.cores()
                  + "% AI Core"
                  + (container.memoryMiB() == null ? "" : ", " + container.memoryMiB() + " MiB"));
      case IDLE -> Rejection.of(RejectKind.NO_IDLE_CHIP);
      case SHARES -> Rejection.of(RejectKind.SHARES_EXHAUSTED, 0, maxShares);
      case MEMORY -> Rejection.of(RejectKind.NOT_ENOUGH_MEMORY, memoryNeed, bestFreeMemory);
      case CORES -> Rejection.of(RejectKind.NOT_ENOUGH_CORES, container.cores(), bestFreeCores);
      default -> Rejection.of(RejectKind.NOT_ENOUGH_CHIPS, container.count(), 0);
    };
  }
}
