package org.vnpu.api.payload;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where every vNPU of a pod goes, decided by the scheduler. Signed (see {@link
 * org.vnpu.api.signing.AllocationSigner}) because the pod's owner can edit pod annotations.
 *
 * @param podUid the pod this allocation is for; binds the signature to one pod
 * @param node the node this allocation is for; binds the signature to one node
 * @param containers per container, init containers first
 */
public record PodAllocation(String podUid, String node, List<ContainerAllocation> containers) {

  public PodAllocation {
    Checks.text(podUid, "podUid");
    Checks.text(node, "node");
    containers = Checks.list(containers, "containers");
    Set<String> names = new HashSet<>();
    for (ContainerAllocation container : containers) {
      if (!names.add(container.name())) {
        throw new IllegalArgumentException("container " + container.name() + " appears twice");
      }
    }
  }
}
