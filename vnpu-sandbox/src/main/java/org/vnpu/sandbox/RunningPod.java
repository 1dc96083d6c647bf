package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;

/**
 * A pod on a sandbox node, from its admission until it finishes or is gone: what the device manager
 * recorded for it (guarded by its {@link DeviceAdmission}'s monitor), what its containers were
 * handed out, and its processes (guarded by the pod's own monitor).
 */
final class RunningPod {
  final Pod pod;
  final Map<String, List<String>> devices = new HashMap<>();
  final Map<String, Map<String, List<String>>> containerDevices = new HashMap<>();
  volatile Map<String, ContainerAllocateResponse> handouts = Map.of();

  /** In the kubelet's pod manager: from the start of its admission until it ends. */
  volatile boolean inPodManager;

  volatile boolean admitted;
  final List<Process> processes = new ArrayList<>();
  volatile boolean deleted;

  RunningPod(Pod pod) {
    this.pod = pod;
  }

  String key() {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
