package org.vnpu.core.ledger;

import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AiCpuLevel;
import org.vnpu.api.SplitMode;
import org.vnpu.core.chip.VnpuTemplate;

/**
 * What one vNPU of a given shape takes from a given chip: the whole chip for a whole card; the
 * requested memory (or the whole chip's) and AI Core percent for a soft share (none for
 * best-effort); a template for a hard-mode share.
 */
public final class VnpuSizer {

  /**
   * A sized vNPU.
   *
   * @param demand what it takes from the chip
   * @param template the hard-mode template; null otherwise
   */
  public record Sized(ChipDemand demand, String template) {}

  private VnpuSizer() {}

  /** The size on {@code state}'s chip, or null when hard mode has no fitting template. */
  public static Sized size(
      ChipState state,
      SplitMode mode,
      int corePercent,
      Long memoryMiB,
      AiCorePolicy policy,
      AiCpuLevel level) {
    if (corePercent == 100) {
      return new Sized(Demands.wholeChip(state.chip()), null);
    }
    if (mode == SplitMode.SOFT) {
      long memory = memoryMiB == null ? state.chip().memoryMiB() : memoryMiB;
      int cores = policy == AiCorePolicy.BEST_EFFORT ? 0 : corePercent;
      return new Sized(new ChipDemand(memory, cores, 0, 0, false), null);
    }
    return TemplateChooser.choose(state, corePercent, memoryMiB, level)
        .map((VnpuTemplate t) -> new Sized(Demands.template(t), t.name()))
        .orElse(null);
  }
}
