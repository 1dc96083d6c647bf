package org.vnpu.core.ledger;

import java.util.Optional;
import org.vnpu.api.AiCpuLevel;
import org.vnpu.core.chip.VnpuTemplate;

/**
 * Hard mode: the template for a share of a chip. The AI Core percent becomes AI Cores (rounded up);
 * the smallest template with at least those AI Cores and at least the requested memory wins. Among
 * templates with equal AI Cores, level {@code low} takes the fewest AI CPUs; {@code high} the most
 * that the chip still has free, falling back to fewer (the 310P rules of MindCluster).
 */
final class TemplateChooser {

  private TemplateChooser() {}

  static Optional<VnpuTemplate> choose(
      ChipState state, int corePercent, Long memoryMiB, AiCpuLevel level) {
    int aiCores = (corePercent * state.chip().aiCores() + 99) / 100;
    int freeAiCpus = state.chip().aiCpus() - state.aiCpusUsed();
    VnpuTemplate best = null;
    for (VnpuTemplate template : state.chip().model().templates()) {
      if (template.aiCores() < aiCores || (memoryMiB != null && template.memoryMiB() < memoryMiB)) {
        continue;
      }
      if (best != null && template.aiCores() > best.aiCores()) {
        break; // templates are sorted smallest first
      }
      if (best == null || prefer(template, best, level, freeAiCpus, state.chip().aiCpus() > 0)) {
        best = template;
      }
    }
    return Optional.ofNullable(best);
  }

  private static boolean prefer(
      VnpuTemplate candidate,
      VnpuTemplate current,
      AiCpuLevel level,
      int freeAiCpus,
      boolean tracked) {
    if (level == AiCpuLevel.LOW) {
      return candidate.aiCpus() < current.aiCpus();
    }
    boolean candidateFits = !tracked || candidate.aiCpus() <= freeAiCpus;
    boolean currentFits = !tracked || current.aiCpus() <= freeAiCpus;
    if (candidateFits != currentFits) {
      return candidateFits;
    }
    return candidate.aiCpus() > current.aiCpus();
  }
}
