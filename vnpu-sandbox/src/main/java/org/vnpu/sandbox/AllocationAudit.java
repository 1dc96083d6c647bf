package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.ShimContract;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.codec.ShimConfigFormat;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.ShimDevice;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.handouts.Handouts;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.DeviceSpec;
import org.vnpu.kubelet.deviceplugin.v1beta1.Mount;

/**
 * The bound pods' signed allocations, read back from their annotations: how many chips they hold,
 * and whether what the device plugins handed out is what was allocated (each container's chips, by
 * its device nodes, and for shares the quota in the shim config mounted for it).
 */
final class AllocationAudit {

  private final Sandbox sandbox;
  private final KubernetesClient client;
  private final PayloadCodec codec = new PayloadCodec();

  AllocationAudit(Sandbox sandbox, KubernetesClient client) {
    this.sandbox = sandbox;
    this.client = client;
  }

  /** Chips that hold at least one vNPU of a bound pod, by the pods' annotations. */
  int chipsUsed() {
    Set<String> chips = new HashSet<>();
    for (Pod pod : client.pods().inAnyNamespace().list().getItems()) {
      for (ContainerAllocation container : allocation(pod)) {
        for (VnpuAssignment vnpu : container.vnpus()) {
          chips.add(pod.getSpec().getNodeName() + "/" + vnpu.chipIndex());
        }
      }
    }
    return chips.size();
  }

  /**
   * Containers whose hand-out is not the allocation their pod's annotation names: another chip (its
   * device nodes), or another quota in the shim config mounted for them.
   */
  int mismatchedHandouts() throws IOException {
    Map<String, Map<String, ContainerAllocateResponse>> handouts = new HashMap<>();
    sandbox.nodes().forEach(node -> handouts.putAll(node.handouts()));
    ShimConfigFormat configs = new ShimConfigFormat();
    int mismatched = 0;
    for (Pod pod : client.pods().inAnyNamespace().list().getItems()) {
      Map<String, ContainerAllocateResponse> handed = handouts.get(pod.getMetadata().getUid());
      if (handed == null) {
        continue;
      }
      for (ContainerAllocation container : allocation(pod)) {
        ContainerAllocateResponse handout = handed.get(container.name());
        List<Integer> indexes = container.vnpus().stream().map(VnpuAssignment::chipIndex).toList();
        boolean same =
            handout != null
                && indexes.equals(
                    Handouts.chips(
                        handout.getDevicesList().stream()
                            .map(DeviceSpec::getContainerPath)
                            .toList(),
                        handout.getEnvsMap()));
        if (same && container.vnpus().stream().noneMatch(VnpuAssignment::wholeCard)) {
          Path config = configOf(handout);
          same =
              config != null
                  && configs
                      .read(Files.readString(config))
                      .devices()
                      .equals(container.vnpus().stream().map(ShimDevice::of).toList());
        }
        if (!same) {
          mismatched++;
        }
      }
    }
    return mismatched;
  }

  private static Path configOf(ContainerAllocateResponse handout) {
    return handout.getMountsList().stream()
        .filter(mount -> mount.getContainerPath().equals(ShimContract.CONTAINER_CONFIG))
        .map(Mount::getHostPath)
        .map(Path::of)
        .findFirst()
        .orElse(null);
  }

  private List<ContainerAllocation> allocation(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(AnnotationKeys.ALLOCATION);
    if (pod.getSpec().getNodeName() == null || value == null) {
      return List.of();
    }
    return codec.decodeAllocation(value).allocation().containers();
  }
}
