package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.time.Instant;
import java.util.List;

/** The pod status a kubelet writes. */
final class KubeletPodStatus {

  private KubeletPodStatus() {}

  /**
   * The status the kubelet reports, with the conditions it sets ({@code pkg/kubelet/kubelet_pods.go
   * generateAPIPodStatus}): a running pod is Ready, which the ReplicaSet controller's available
   * replicas and the disruption controller's healthy pods (what the Eviction API lets go under a
   * PodDisruptionBudget) count.
   */
  static PodStatus of(String phase, String reason, String message) {
    String now = Instant.now().toString();
    String ready = "Running".equals(phase) ? "True" : "False";
    PodStatusBuilder status =
        new PodStatusBuilder()
            .withPhase(phase)
            .withReason(reason)
            .withMessage(message)
            .withStartTime(now);
    for (String type : List.of("PodScheduled", "Initialized", "ContainersReady", "Ready")) {
      boolean always = type.equals("PodScheduled") || type.equals("Initialized");
      status
          .addNewCondition()
          .withType(type)
          .withStatus(always ? "True" : ready)
          .withLastTransitionTime(now)
          .endCondition();
    }
    return status.build();
  }
}
