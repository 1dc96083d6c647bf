package org.vnpu.api.payload;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.vnpu.api.KubernetesNames;

/**
 * The vNPUs of one container.
 *
 * @param name container name
 * @param init whether it is an init container (handed out first, in order)
 * @param vnpus its vNPUs, each on a distinct chip
 */
public record ContainerAllocation(String name, boolean init, List<VnpuAssignment> vnpus) {

  public ContainerAllocation {
    Checks.text(name, "name");
    if (!KubernetesNames.isLabel(name)) {
      // It names the container's shim config file on the node.
      throw new IllegalArgumentException(
          "container name \"" + name + "\" " + KubernetesNames.LABEL_RULE);
    }
    vnpus = Checks.list(vnpus, "vnpus");
    if (vnpus.isEmpty()) {
      throw new IllegalArgumentException("vnpus of container " + name + " must not be empty");
    }
    Set<Integer> chips = new HashSet<>();
    for (VnpuAssignment vnpu : vnpus) {
      if (!chips.add(vnpu.chipIndex())) {
        throw new IllegalArgumentException(
            "container " + name + " has two vNPUs on chip " + vnpu.chipIndex());
      }
    }
  }
}
