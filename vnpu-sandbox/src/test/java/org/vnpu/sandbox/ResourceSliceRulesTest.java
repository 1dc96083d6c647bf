package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyRange;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePool;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The sandbox's API server refuses the ResourceSlices a real one refuses, each for the rule of
 * upstream's validation it breaks, and drops the counters while {@code DRAPartitionableDevices} is
 * off, as the real one does.
 */
class ResourceSliceRulesTest {

  @Test
  void aValidSliceIsStoredAndEachBrokenRuleIsRefusedNamingItsField() {
    try (ApiServer api = ApiServer.start(0)) {
      var slices = api.client().resources(ResourceSlice.class);
      slices.resource(counters("good", "aicore", 8)).create();

      assertThatThrownBy(() -> slices.resource(counters("camel", "aiCore", 1)).create())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("spec.sharedCounters[0].counters[aiCore]")
          .hasMessageContaining("RFC 1123 label");
      assertThatThrownBy(() -> slices.resource(counters("nine", "aicore", 9)).create())
          .hasMessageContaining("spec.sharedCounters: Too many: 9: must have at most 8");
      assertThatThrownBy(() -> slices.resource(memory("uneven", 44280)).create())
          .hasMessageContaining("spec.devices[0].capacity[memory].requestPolicy.validRange.step")
          .hasMessageContaining("not a multiple of a given step");
      slices.resource(memory("even", 44032)).create();
      assertThat(slices.list().getItems())
          .extracting(s -> s.getMetadata().getName())
          .containsExactlyInAnyOrder("good", "even");
    }
  }

  @Test
  void withPartitionableDevicesOffTheCountersAreDroppedAsTheApiServerDoes() {
    try (ApiServer api =
        ApiServer.start(0, request -> {}, Set.of(SliceGates.PARTITIONABLE_DEVICES))) {
      var slices = api.client().resources(ResourceSlice.class);
      ResourceSlice consuming = slice("consuming");
      Device device = new Device();
      device.setName("npu-0-1of2");
      DeviceCounterConsumption consumption = new DeviceCounterConsumption();
      consumption.setCounterSet("npu-0");
      consumption.setCounters(Map.of("aicore", new Counter(new Quantity("50"))));
      device.setConsumesCounters(List.of(consumption));
      consuming.getSpec().setDevices(List.of(device));

      ResourceSlice stored = slices.resource(consuming).create();

      assertThat(stored.getSpec().getDevices().get(0).getConsumesCounters()).isNullOrEmpty();
    }
  }

  private static ResourceSlice counters(String name, String counter, int sets) {
    ResourceSlice slice = slice(name);
    slice
        .getSpec()
        .setSharedCounters(
            IntStream.range(0, sets)
                .mapToObj(
                    i -> {
                      CounterSet set = new CounterSet();
                      set.setName("npu-" + i);
                      set.setCounters(Map.of(counter, new Counter(new Quantity("100"))));
                      return set;
                    })
                .toList());
    return slice;
  }

  private static ResourceSlice memory(String name, long maxMiB) {
    ResourceSlice slice = slice(name);
    DeviceCapacity memory = new DeviceCapacity();
    memory.setValue(new Quantity("44280Mi"));
    CapacityRequestPolicyRange range = new CapacityRequestPolicyRange();
    range.setMin(new Quantity("1Gi"));
    range.setMax(new Quantity(maxMiB + "Mi"));
    range.setStep(new Quantity("1Gi"));
    CapacityRequestPolicy policy = new CapacityRequestPolicy();
    policy.setDefault(new Quantity("1Gi"));
    policy.setValidRange(range);
    memory.setRequestPolicy(policy);
    Device device = new Device();
    device.setName("npu-0");
    device.setAllowMultipleAllocations(true);
    device.setCapacity(Map.of("memory", memory));
    slice.getSpec().setDevices(List.of(device));
    return slice;
  }

  private static ResourceSlice slice(String name) {
    ResourceSliceSpec spec = new ResourceSliceSpec();
    spec.setDriver("vnpu.huawei.com");
    spec.setNodeName("node-a");
    ResourcePool pool = new ResourcePool();
    pool.setName("node-a");
    pool.setGeneration(1L);
    pool.setResourceSliceCount(1L);
    spec.setPool(pool);
    ResourceSlice slice = new ResourceSlice();
    slice.setMetadata(new ObjectMetaBuilder().withName(name).build());
    slice.setSpec(spec);
    return slice;
  }
}
