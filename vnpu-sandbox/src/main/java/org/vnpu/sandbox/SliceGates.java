package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import java.util.List;
import java.util.Set;

/**
 * What the API server drops from a ResourceSlice when a feature gate is off ({@code
 * resourceslice/strategy.go}, {@code PrepareForCreate} and {@code PrepareForUpdate}).
 */
final class SliceGates {

  /** The feature gates whose fields the API server drops while they are off. */
  static final String PARTITIONABLE_DEVICES = "DRAPartitionableDevices";

  private SliceGates() {}

  /**
   * As {@code dropDisabledDRAPartitionableDevicesFields}: with the gate off, the counters and
   * per-device node selection of a new slice are dropped, unless the stored slice already uses
   * them.
   */
  static void dropDisabledFields(ResourceSlice slice, ResourceSlice stored, Set<String> offGates) {
    if (!offGates.contains(PARTITIONABLE_DEVICES) || usesPartitionableDevices(stored)) {
      return;
    }
    ResourceSliceSpec spec = slice.getSpec();
    spec.setSharedCounters(null);
    spec.setPerDeviceNodeSelection(null);
    if (spec.getDevices() != null) {
      for (Device device : spec.getDevices()) {
        device.setConsumesCounters(null);
        device.setNodeName(null);
        device.setNodeSelector(null);
        device.setAllNodes(null);
      }
    }
  }

  private static boolean usesPartitionableDevices(ResourceSlice slice) {
    if (slice == null || slice.getSpec() == null) {
      return false;
    }
    ResourceSliceSpec spec = slice.getSpec();
    return !isEmpty(spec.getSharedCounters())
        || spec.getPerDeviceNodeSelection() != null
        || devicesOf(spec).stream()
            .anyMatch(
                d ->
                    !isEmpty(d.getConsumesCounters())
                        || d.getNodeName() != null
                        || d.getNodeSelector() != null
                        || d.getAllNodes() != null);
  }

  private static List<Device> devicesOf(ResourceSliceSpec spec) {
    return spec.getDevices() == null ? List.of() : spec.getDevices();
  }

  private static boolean isEmpty(List<?> list) {
    return list == null || list.isEmpty();
  }
}
