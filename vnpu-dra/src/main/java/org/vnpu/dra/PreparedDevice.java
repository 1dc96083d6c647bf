package org.vnpu.dra;

import java.util.List;

/**
 * One device of a prepared claim, as the kubelet is told of it.
 *
 * @param request the claim's request it satisfies: the request, never a sub-request ({@code
 *     request/sub} from {@code firstAvailable}), because containers name requests and the kubelet
 *     matches on those ({@code pkg/kubelet/cm/dra}, as the kubelet plugin helper's {@code
 *     BaseRequestRef})
 * @param pool the pool (this node)
 * @param device the device's name in the ResourceSlice
 * @param cdiIds the CDI device IDs the container runtime resolves
 * @param shareId the allocation's share of a device many claims share (consumable capacity), or
 *     null
 */
public record PreparedDevice(
    String request, String pool, String device, List<String> cdiIds, String shareId) {
  public PreparedDevice {
    cdiIds = List.copyOf(cdiIds);
  }
}
