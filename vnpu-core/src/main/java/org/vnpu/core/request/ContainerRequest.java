package org.vnpu.core.request;

import org.vnpu.api.AiCorePolicy;
import org.vnpu.core.chip.ChipTypes;

/**
 * What one container asks for.
 *
 * @param name container name
 * @param init whether it is an init container
 * @param count number of vNPUs, each on its own chip; more than 1 only for whole cards
 * @param cores AI Core percent of one chip: 100 is a whole card, 0 reserves no AI Core
 * @param memoryMiB device memory per vNPU; null means the whole chip's memory
 * @param chipTypes the chip types it may use
 * @param policy AI Core policy of a soft share; null for whole cards and in hard mode
 */
public record ContainerRequest(
    String name,
    boolean init,
    int count,
    int cores,
    Long memoryMiB,
    ChipTypes chipTypes,
    AiCorePolicy policy) {

  /** Cores value of a whole card. */
  public static final int WHOLE_CARD_CORES = 100;

  /** Whether the container owns its chips exclusively. */
  public boolean wholeCard() {
    return cores == WHOLE_CARD_CORES;
  }
}
