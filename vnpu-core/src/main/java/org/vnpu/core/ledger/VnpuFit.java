package org.vnpu.core.ledger;

import java.util.function.BiPredicate;

/**
 * Whether one vNPU can go on a chip of a node: {@code test}, which is exact, and the free device
 * memory and AI Core percent that every chip taking the vNPU has at least. A caller that keeps the
 * chips' free figures passes over the chips short of them without reading a chip, which is what
 * makes a bound asked of every node cheap.
 *
 * @param memoryMiB free device memory any chip taking the vNPU has at least
 * @param corePercent free AI Core percent any chip taking the vNPU has at least
 * @param roomDecides whether a chip that takes some vNPU ({@link ChipState#takesNoVnpu} false) and
 *     has the room takes this one, so that {@code test} need not be asked: true for a soft share
 *     with its memory given, any chip type and no die ID
 * @param test whether the chip of the node takes the vNPU
 */
public record VnpuFit(
    long memoryMiB, int corePercent, boolean roomDecides, BiPredicate<NodeState, ChipState> test) {

  /** Whether a chip with this much free could take the vNPU: necessary, not sufficient. */
  public boolean roomFor(long freeMemoryMiB, int freeCorePercent) {
    return freeMemoryMiB >= memoryMiB && freeCorePercent >= corePercent;
  }
}
