package org.vnpu.dra;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyRange;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePool;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.api.DraDeviceAttributes;
import org.vnpu.api.payload.RegisteredChip;

/**
 * A node's devices as {@code resource.k8s.io/v1} ResourceSlices, within the limits of upstream's
 * validation ({@code pkg/apis/resource/validation/validation.go}, {@code
 * validateResourceSliceSpec}): one pool named after the node; devices at most 128 per slice (64
 * when they consume counters, {@code ResourceSliceMaxDevicesWithTaintsOrConsumesCounters}); with
 * partitionable devices the chips' counter sets in slices of their own (the 1.35+ rule: a slice
 * holds devices or counters), at most 8 per slice ({@code ResourceSliceMaxCounterSets}), their
 * counters named as DNS labels ({@code validateCounterName}).
 *
 * <p>Every device has the attributes CEL selectors use — {@code type}, {@code dieID}, {@code
 * index}, {@code numaNode}, {@code interconnectGroup}, {@code splitMode}, {@code aiCores} (the
 * chip's), {@code wholeCard} — and the capacities {@code aiCore} (percent) and {@code memory}
 * (capacities are C identifiers, so {@code aiCore} is one; counters are DNS labels: {@code aicore}
 * and {@code memory}).
 */
public final class ResourceSlices {

  /** Capacity names (C identifiers). */
  static final String AI_CORE = DraDeviceAttributes.AI_CORE_CAPACITY;

  static final String MEMORY = DraDeviceAttributes.MEMORY_CAPACITY;

  /** Counter names (DNS labels). */
  static final String AI_CORE_COUNTER = "aicore";

  static final String MEMORY_COUNTER = "memory";

  static final int MAX_DEVICES = 128;
  static final int MAX_DEVICES_CONSUMING_COUNTERS = 64;
  static final int MAX_COUNTER_SETS = 8;

  /** The step of consumable memory requests. */
  private static final long MEMORY_STEP_MIB = 1024;

  private ResourceSlices() {}

  /** The slices of {@code devices}, generation {@code generation} of the node's pool. */
  public static List<ResourceSlice> of(
      String driver, String node, long generation, NodeDevices devices) {
    boolean counters = devices.sharing() == Sharing.PARTITIONABLE;
    List<ResourceSliceSpec> specs = new ArrayList<>();
    if (counters) {
      List<CounterSet> sets = devices.chips().stream().map(ResourceSlices::counterSet).toList();
      for (int from = 0; from < sets.size(); from += MAX_COUNTER_SETS) {
        ResourceSliceSpec counterSlice = spec(driver, node);
        counterSlice.setSharedCounters(
            sets.subList(from, Math.min(sets.size(), from + MAX_COUNTER_SETS)));
        specs.add(counterSlice);
      }
    }
    int perSlice = counters ? MAX_DEVICES_CONSUMING_COUNTERS : MAX_DEVICES;
    List<Device> all = devices.devices().stream().map(npu -> device(npu, counters)).toList();
    for (int from = 0; from < all.size(); from += perSlice) {
      ResourceSliceSpec spec = spec(driver, node);
      spec.setDevices(all.subList(from, Math.min(all.size(), from + perSlice)));
      specs.add(spec);
    }
    if (specs.isEmpty()) {
      specs.add(spec(driver, node)); // an empty pool still says "this node has none now"
    }
    List<ResourceSlice> slices = new ArrayList<>();
    for (int i = 0; i < specs.size(); i++) {
      ResourceSliceSpec spec = specs.get(i);
      ResourcePool pool = new ResourcePool();
      pool.setName(node);
      pool.setGeneration(generation);
      pool.setResourceSliceCount((long) specs.size());
      spec.setPool(pool);
      ResourceSlice slice = new ResourceSlice();
      slice.setMetadata(new ObjectMeta());
      slice.getMetadata().setName(sliceName(driver, node, i));
      slice.setSpec(spec);
      slices.add(slice);
    }
    return slices;
  }

  /** The name of slice {@code index} of the node's pool. */
  public static String sliceName(String driver, String node, int index) {
    return node + "-" + driver.replace('.', '-') + "-" + index;
  }

  private static ResourceSliceSpec spec(String driver, String node) {
    ResourceSliceSpec spec = new ResourceSliceSpec();
    spec.setDriver(driver);
    spec.setNodeName(node);
    return spec;
  }

  /** The counter set of chip {@code index} (partitionable devices). */
  static String counterSet(int index) {
    return "npu-" + index;
  }

  private static CounterSet counterSet(RegisteredChip chip) {
    CounterSet set = new CounterSet();
    set.setName(counterSet(chip.index()));
    set.setCounters(counters(100, chip.memoryMiB()));
    return set;
  }

  private static Map<String, Counter> counters(int cores, long memoryMiB) {
    Map<String, Counter> counters = new LinkedHashMap<>();
    counters.put(AI_CORE_COUNTER, new Counter(new Quantity(Integer.toString(cores))));
    counters.put(MEMORY_COUNTER, new Counter(new Quantity(memoryMiB + "Mi")));
    return counters;
  }

  private static Device device(NodeDevices.NpuDevice npu, boolean consumesCounters) {
    RegisteredChip chip = npu.chip();
    Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
    attributes.put(DraDeviceAttributes.TYPE, text(chip.chipType()));
    attributes.put(DraDeviceAttributes.DIE_ID, text(chip.dieId()));
    attributes.put(DraDeviceAttributes.INDEX, number(chip.index()));
    attributes.put(DraDeviceAttributes.NUMA_NODE, number(chip.numaNode()));
    attributes.put(DraDeviceAttributes.INTERCONNECT_GROUP, text(chip.interconnectGroup()));
    attributes.put(DraDeviceAttributes.SPLIT_MODE, text("soft"));
    attributes.put(DraDeviceAttributes.AI_CORES, number(chip.aiCores()));
    DeviceAttribute whole = new DeviceAttribute();
    whole.setBool(npu.wholeCard());
    attributes.put(DraDeviceAttributes.WHOLE_CARD, whole);

    Map<String, DeviceCapacity> capacity = new LinkedHashMap<>();
    DeviceCapacity cores = new DeviceCapacity();
    cores.setValue(new Quantity(Integer.toString(npu.cores())));
    DeviceCapacity memory = new DeviceCapacity();
    memory.setValue(new Quantity(npu.memoryMiB() + "Mi"));
    Device device = new Device();
    device.setName(npu.name());
    device.setAttributes(attributes);
    if (npu.consumable()) {
      cores.setRequestPolicy(policy("100", range("1", "100", "1")));
      memory.setRequestPolicy(
          policy("1Gi", range("1Gi", memoryRangeMaxMiB(npu.memoryMiB()) + "Mi", "1Gi")));
      device.setAllowMultipleAllocations(true);
    }
    capacity.put(AI_CORE, cores);
    capacity.put(MEMORY, memory);
    device.setCapacity(capacity);
    if (consumesCounters) {
      DeviceCounterConsumption consumption = new DeviceCounterConsumption();
      consumption.setCounterSet(counterSet(chip.index()));
      consumption.setCounters(counters(npu.cores(), npu.memoryMiB()));
      device.setConsumesCounters(List.of(consumption));
    }
    return device;
  }

  /**
   * The largest memory a claim may ask of a chip of {@code memoryMiB}: whole GiB steps from 1 GiB
   * ({@code validateRequestPolicyRangeStep}: max − min must be a multiple of the step), so a chip
   * reporting 44280 MiB offers at most 44032 MiB (43 GiB) to one claim.
   */
  static long memoryRangeMaxMiB(long memoryMiB) {
    return MEMORY_STEP_MIB + (memoryMiB - MEMORY_STEP_MIB) / MEMORY_STEP_MIB * MEMORY_STEP_MIB;
  }

  private static CapacityRequestPolicy policy(
      String defaultValue, CapacityRequestPolicyRange range) {
    CapacityRequestPolicy policy = new CapacityRequestPolicy();
    policy.setDefault(new Quantity(defaultValue));
    policy.setValidRange(range);
    return policy;
  }

  private static CapacityRequestPolicyRange range(String min, String max, String step) {
    CapacityRequestPolicyRange range = new CapacityRequestPolicyRange();
    range.setMin(new Quantity(min));
    range.setMax(new Quantity(max));
    range.setStep(new Quantity(step));
    return range;
  }

  private static DeviceAttribute text(String value) {
    DeviceAttribute attribute = new DeviceAttribute();
    attribute.setString(value);
    return attribute;
  }

  private static DeviceAttribute number(long value) {
    DeviceAttribute attribute = new DeviceAttribute();
    attribute.setInt(value);
    return attribute;
  }
}
