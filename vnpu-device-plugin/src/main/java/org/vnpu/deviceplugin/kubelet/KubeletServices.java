package org.vnpu.deviceplugin.kubelet;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.deviceplugin.allocate.Allocator;

/**
 * One {@link DevicePluginService} per resource the node advertises. A chip type seen for the first
 * time gets its service (and, through the {@link KubeletRegistrar}, its socket and registration); a
 * type no longer present keeps its registration with no devices, as a kubelet expects of a resource
 * that went away.
 */
public final class KubeletServices {

  private final Allocator allocator;
  private final int maxSharesPerChip;
  private final Map<String, DevicePluginService> services = new LinkedHashMap<>();

  /**
   * @param maxSharesPerChip share slots advertised per chip
   */
  public KubeletServices(Allocator allocator, int maxSharesPerChip) {
    this.allocator = allocator;
    this.maxSharesPerChip = maxSharesPerChip;
  }

  /** Sends every resource's devices on {@code chips} to the kubelet. */
  public synchronized void publish(List<RegisteredChip> chips) {
    for (KubeletResource resource : KubeletResource.forChips(chips, maxSharesPerChip)) {
      services.computeIfAbsent(
          resource.name(), name -> new DevicePluginService(resource, allocator));
    }
    services.values().forEach(service -> service.publish(chips));
  }

  /** The services so far, {@code vnpu-number} first, then as their resources appeared. */
  public synchronized List<DevicePluginService> all() {
    return List.copyOf(services.values());
  }
}
