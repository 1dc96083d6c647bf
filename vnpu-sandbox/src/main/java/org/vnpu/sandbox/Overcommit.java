package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipModel;
import org.vnpu.kube.PodPhases;

/**
 * Chips promised more than they have, from the signed allocations on pods that have not finished:
 * more than 100 % of AI Core (a whole card counts 100) or more memory than the chip's model has.
 */
public final class Overcommit {

  private Overcommit() {}

  /** What {@link #of} found, and how many chips are in use. */
  public record Finding(List<String> overcommitted, int chipsInUse) {}

  /** The over-committed chips among {@code pods}, e.g. {@code a2/3 (130 % AI Core, 8192 MiB)}. */
  public static Finding of(List<Pod> pods, ChipCatalog catalog) {
    PayloadCodec codec = new PayloadCodec();
    Map<String, int[]> cores = new TreeMap<>();
    Map<String, long[]> memory = new TreeMap<>();
    Map<String, Long> capacity = new HashMap<>();
    for (Pod pod : pods) {
      Map<String, String> annotations = pod.getMetadata().getAnnotations();
      String value = annotations == null ? null : annotations.get(AnnotationKeys.ALLOCATION);
      if (value == null || pod.getSpec().getNodeName() == null || PodPhases.finished(pod)) {
        continue; // a finished pod's share is free again
      }
      for (ContainerAllocation container :
          codec.decodeAllocation(value).allocation().containers()) {
        for (VnpuAssignment vnpu : container.vnpus()) {
          String chip = pod.getSpec().getNodeName() + "/" + vnpu.chipIndex();
          cores.computeIfAbsent(chip, c -> new int[1])[0] += vnpu.wholeCard() ? 100 : vnpu.cores();
          memory.computeIfAbsent(chip, c -> new long[1])[0] += vnpu.memoryMiB();
          capacity.put(
              chip, catalog.find(vnpu.chipType()).map(ChipModel::memoryMiB).orElse(Long.MAX_VALUE));
        }
      }
    }
    List<String> over = new ArrayList<>();
    cores.forEach(
        (chip, sum) -> {
          if (sum[0] > 100 || memory.get(chip)[0] > capacity.get(chip)) {
            over.add(chip + " (" + sum[0] + " % AI Core, " + memory.get(chip)[0] + " MiB)");
          }
        });
    return new Finding(over, cores.size());
  }
}
