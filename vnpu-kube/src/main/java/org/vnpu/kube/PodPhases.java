package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Set;

/** What a pod's {@code status.phase} says, read safely from a pod that may have no status yet. */
public final class PodPhases {

  private static final Set<String> FINISHED = Set.of("Succeeded", "Failed");

  private PodPhases() {}

  /** The pod's phase, or null when its status names none (not written yet, or partly written). */
  public static String of(Pod pod) {
    return pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }

  /** Whether the pod has finished ({@code Succeeded} or {@code Failed}): its resources are free. */
  public static boolean finished(Pod pod) {
    String phase = of(pod);
    return phase != null && FINISHED.contains(phase);
  }
}
