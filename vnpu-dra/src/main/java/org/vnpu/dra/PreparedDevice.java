package org.vnpu.dra;

import java.util.List;

/**
 * One device of a prepared claim, as the kubelet is told of it.
 *
 * @param request the claim's request it satisfies
 * @param pool the pool (this node)
 * @param device the device's name in the ResourceSlice
 * @param cdiIds the CDI device IDs the container runtime resolves
 */
public record PreparedDevice(String request, String pool, String device, List<String> cdiIds) {
  public PreparedDevice {
    cdiIds = List.copyOf(cdiIds);
  }
}
