package org.vnpu.core.chip;

/**
 * A hardware vNPU template that Ascend Docker Runtime can carve out of a chip ({@code
 * ASCEND_VNPU_SPECS}), e.g. {@code vir04_3c}: 4 AI Cores, 3 AI CPUs.
 *
 * @param name the template name the runtime accepts
 * @param aiCores AI Cores of one instance
 * @param aiCpus AI CPUs of one instance; 0 when the chip's AI CPUs are not tracked
 * @param memoryMiB device memory of one instance
 */
public record VnpuTemplate(String name, int aiCores, int aiCpus, long memoryMiB) {

  public VnpuTemplate {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("template name must not be empty");
    }
    if (aiCores < 1 || aiCpus < 0 || memoryMiB < 1) {
      throw new IllegalArgumentException(
          "template "
              + name
              + " needs aiCores ≥ 1, aiCpus ≥ 0 and memoryMiB ≥ 1, found "
              + aiCores
              + ", "
              + aiCpus
              + ", "
              + memoryMiB);
    }
  }
}
