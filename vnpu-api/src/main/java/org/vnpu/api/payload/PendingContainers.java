package org.vnpu.api.payload;

import java.util.List;

/**
 * The containers whose vNPUs the device plugin has not yet handed out, in hand-out order (init
 * containers first), under {@code huawei.com/vnpu-devices-to-allocate}.
 *
 * @param containers container names; each must appear in the pod's signed allocation
 */
public record PendingContainers(List<String> containers) {

  public PendingContainers {
    containers = Checks.list(containers, "containers");
    containers.forEach(name -> Checks.text(name, "containers[]"));
  }
}
