package org.vnpu.core.ledger;

import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.chip.VnpuTemplate;
import org.vnpu.core.inventory.Chip;

/** What an allocated vNPU takes from its chip, as recorded in an allocation annotation. */
public final class Demands {

  private Demands() {}

  /** Everything the chip has: what a whole card takes. */
  public static ChipDemand wholeChip(Chip chip) {
    return new ChipDemand(chip.memoryMiB(), 100, chip.aiCores(), chip.aiCpus(), true);
  }

  /** A hard-mode template instance. */
  public static ChipDemand template(VnpuTemplate template) {
    return new ChipDemand(template.memoryMiB(), 0, template.aiCores(), template.aiCpus(), false);
  }

  /**
   * The demand of an allocated vNPU on {@code chip}. A hard-mode template the catalog no longer
   * knows is charged by its recorded memory and by its AI Core percent of the chip, rounded up.
   */
  public static ChipDemand of(VnpuAssignment vnpu, Chip chip) {
    if (vnpu.wholeCard()) {
      return wholeChip(chip);
    }
    if (vnpu.mode() == SplitMode.SOFT) {
      return new ChipDemand(vnpu.memoryMiB(), vnpu.cores(), 0, 0, false);
    }
    return chip.model().templates().stream()
        .filter(t -> t.name().equals(vnpu.template()))
        .findFirst()
        .map(Demands::template)
        .orElseGet(
            () ->
                new ChipDemand(
                    vnpu.memoryMiB(), 0, (vnpu.cores() * chip.aiCores() + 99) / 100, 0, false));
  }
}
