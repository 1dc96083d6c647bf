package org.vnpu.api.payload;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.vnpu.api.Priority;

/**
 * Where every vNPU of a pod goes, decided by the scheduler. Signed (see {@link
 * org.vnpu.api.signing.AllocationSigner}) because the pod's owner can edit pod annotations.
 *
 * @param podUid the pod this allocation is for; binds the signature to one pod
 * @param node the node this allocation is for; binds the signature to one node
 * @param containers per container, init containers first
 * @param offline how its vNPUs run as offline work; null for an online pod. Absent from the JSON of
 *     an online pod, so allocations signed before priorities existed keep their signatures.
 */
public record PodAllocation(
    String podUid,
    String node,
    List<ContainerAllocation> containers,
    @JsonInclude(JsonInclude.Include.NON_NULL) OfflineWork offline) {

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

  /** The allocation of an online pod. */
  public PodAllocation(String podUid, String node, List<ContainerAllocation> containers) {
    this(podUid, node, containers, null);
  }

  public Priority priority() {
    return offline == null ? Priority.ONLINE : Priority.OFFLINE;
  }

  /** This allocation for the pod {@code uid}: the same node, vNPUs and priority. */
  public PodAllocation forPod(String uid) {
    return new PodAllocation(uid, node, containers, offline);
  }
}
