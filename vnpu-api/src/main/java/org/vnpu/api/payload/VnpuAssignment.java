package org.vnpu.api.payload;

import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.SplitMode;

/**
 * One vNPU of a container: which chip, and what share of it.
 *
 * @param chipIndex logic index of the chip on the node
 * @param dieId die ID of the chip, so that a stale index cannot point at another chip
 * @param chipType catalog name of the chip
 * @param memoryMiB device memory quota in MiB (the whole chip for a whole card)
 * @param cores AI Core percent reserved (100 for a whole card, 0 for best-effort)
 * @param mode soft (shim-enforced share) or hard (hardware template)
 * @param wholeCard whether the container owns the chip exclusively
 * @param policy AI Core policy; only for soft shares, null otherwise
 * @param template hardware vNPU template name; only for hard-mode shares, null otherwise
 */
public record VnpuAssignment(
    int chipIndex,
    String dieId,
    String chipType,
    long memoryMiB,
    int cores,
    SplitMode mode,
    boolean wholeCard,
    AiCorePolicy policy,
    String template) {

  public VnpuAssignment {
    Checks.range(chipIndex, 0, 1023, "chipIndex");
    Checks.text(dieId, "dieId");
    Checks.text(chipType, "chipType");
    Checks.range(memoryMiB, 1, Long.MAX_VALUE, "memoryMiB");
    Checks.range(cores, 0, 100, "cores");
    Checks.present(mode, "mode");
    boolean share = mode == SplitMode.SOFT && !wholeCard;
    if (share != (policy != null)) {
      throw new IllegalArgumentException(
          "policy must be present exactly for soft shares, found "
              + policy
              + " on a "
              + (wholeCard ? "whole card" : mode.wireName() + " vNPU"));
    }
    boolean templated = mode == SplitMode.HARD && !wholeCard;
    if (templated != (template != null)) {
      throw new IllegalArgumentException(
          "template must be present exactly for hard-mode shares, found " + template);
    }
    if (wholeCard && cores != 100) {
      throw new IllegalArgumentException("cores=" + cores + " on a whole card must be 100");
    }
  }

  /**
   * The slice for people: {@code whole card}, {@code hard vir02_1c}, or a soft share such as {@code
   * 30 % AI Core, 8 GiB, elastic} (memory in whole GiB where exact, else MiB).
   */
  public String slice() {
    if (wholeCard) {
      return "whole card";
    }
    if (mode == SplitMode.HARD) {
      return "hard " + template;
    }
    String memory = memoryMiB % 1024 == 0 ? memoryMiB / 1024 + " GiB" : memoryMiB + " MiB";
    return cores + " % AI Core, " + memory + ", " + policy.wireName();
  }
}
