package org.vnpu.core.chip;

import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One chip (die) type of the catalog.
 *
 * @param name catalog name, e.g. {@code 910B3}; how the device plugin and users refer to it
 * @param aiCores AI Cores of the chip
 * @param aiCpus AI CPUs of the chip; 0 when not tracked
 * @param memoryMiB nominal device memory (the device plugin publishes what the driver reports)
 * @param verified false for chips whose figures no public source confirms yet
 * @param interconnect the interconnect of servers built with this chip
 * @param templates hardware vNPU templates, smallest first; empty when hard mode is unsupported
 */
public record ChipModel(
    String name,
    int aiCores,
    int aiCpus,
    long memoryMiB,
    boolean verified,
    Interconnect interconnect,
    List<VnpuTemplate> templates) {

  public ChipModel {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("chip name must not be empty");
    }
    if (aiCores < 1 || aiCpus < 0 || memoryMiB < 1) {
      throw new IllegalArgumentException(
          "chip " + name + " needs aiCores ≥ 1, aiCpus ≥ 0 and memoryMiB ≥ 1");
    }
    if (interconnect == null) {
      throw new IllegalArgumentException("chip " + name + " needs an interconnect");
    }
    templates =
        List.copyOf(templates == null ? List.of() : templates).stream()
            .sorted(
                Comparator.comparingInt(VnpuTemplate::aiCores)
                    .thenComparingInt(VnpuTemplate::aiCpus)
                    .thenComparingLong(VnpuTemplate::memoryMiB))
            .toList();
    Set<String> names = new HashSet<>();
    for (VnpuTemplate template : templates) {
      checkTemplateFits(name, aiCores, aiCpus, memoryMiB, template);
      if (!names.add(template.name())) {
        throw new IllegalArgumentException(
            "chip " + name + ": template " + template.name() + " appears twice");
      }
    }
  }

  private static void checkTemplateFits(
      String chip, int aiCores, int aiCpus, long memoryMiB, VnpuTemplate template) {
    String problem = null;
    if (template.aiCores() > aiCores) {
      problem = template.aiCores() + " AI Cores, more than the chip's " + aiCores;
    } else if (aiCpus > 0 && template.aiCpus() > aiCpus) {
      problem = template.aiCpus() + " AI CPUs, more than the chip's " + aiCpus;
    } else if (template.memoryMiB() > memoryMiB) {
      problem = template.memoryMiB() + " MiB, more than the chip's " + memoryMiB;
    }
    if (problem != null) {
      throw new IllegalArgumentException(
          "chip " + chip + ": template " + template.name() + " has " + problem);
    }
  }
}
