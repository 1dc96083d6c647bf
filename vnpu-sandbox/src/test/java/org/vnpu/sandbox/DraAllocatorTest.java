package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.vnpu.kube.DeviceSelectors;

/** Each test fails when the allocator skips the upstream step it names. */
class DraAllocatorTest {

  private static final String CLASS =
      """
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: vnpu.huawei.com}
      spec:
        selectors: [{cel: {expression: 'device.driver == "vnpu.huawei.com"'}}]
      """;

  private final DraAllocator allocator =
      new DraAllocator(
          new DeviceSelectors(),
          Map.of("vnpu.huawei.com", Serialization.unmarshal(CLASS, DeviceClass.class)));

  private static ResourceSlice slice(
      String name, String node, long generation, long count, String devicesYaml) {
    return Serialization.unmarshal(
        """
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: %s}
        spec:
          driver: vnpu.huawei.com
          nodeName: %s
          pool: {name: %s, generation: %d, resourceSliceCount: %d}
        %s
        """
            .formatted(name, node, node, generation, count, devicesYaml.indent(2)),
        ResourceSlice.class);
  }

  /** A slice of chip {@code chip}: a quarter, or whole when {@code whole}. */
  private static String device(String name, int chip, boolean whole, int cores) {
    return """
        - name: %s
          attributes:
            index: {int: %d}
            wholeCard: {bool: %s}
          capacity:
            aiCore: {value: "%d"}
            memory: {value: 16Gi}
        """
        .formatted(name, chip, whole, cores);
  }

  private static String devices(String... devices) {
    return "devices:\n" + String.join("", devices);
  }

  private static ResourceClaim claim(String requestsYaml) {
    return Serialization.unmarshal(
        """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: c, namespace: default, uid: u1}
        spec:
          devices:
        %s
        """
            .formatted(requestsYaml.indent(4)),
        ResourceClaim.class);
  }

  private static final ResourceClaim QUARTER =
      claim(
          """
          requests:
          - name: npu
            exactly:
              deviceClassName: vnpu.huawei.com
              selectors:
              - cel: {expression: '!device.attributes["vnpu.huawei.com"].wholeCard'}
          """);

  private static ResourceClaim allocated(ResourceClaim claim, AllocationResult allocation) {
    ResourceClaim copy = Serialization.clone(claim);
    copy.setStatus(new ResourceClaimStatus());
    copy.getStatus().setAllocation(allocation);
    return copy;
  }

  private List<String> devicesOf(Optional<AllocationResult> result) {
    assertThat(result).isPresent();
    return result.get().getDevices().getResults().stream()
        .map(DeviceRequestAllocationResult::getDevice)
        .toList();
  }

  @Test
  void takesTheFirstFreeDeviceInSliceOrderThatMatchesTheSelectors() {
    List<ResourceSlice> slices =
        List.of(
            slice(
                "s0",
                "n1",
                1,
                1,
                devices(
                    device("npu-0", 0, true, 100),
                    device("npu-1-1of4", 1, false, 25),
                    device("npu-0-1of4", 0, false, 25))));
    // npu-0 fails the request's selector; npu-1-1of4 comes before npu-0-1of4 in the slice
    assertThat(devicesOf(allocator.allocate(QUARTER, "n1", slices, List.of())))
        .containsExactly("npu-1-1of4");
    // a device another claim holds is in use
    ResourceClaim other =
        allocated(QUARTER, allocator.allocate(QUARTER, "n1", slices, List.of()).orElseThrow());
    assertThat(devicesOf(allocator.allocate(QUARTER, "n1", slices, List.of(other))))
        .containsExactly("npu-0-1of4");
    // another node's slices are not this node's
    assertThat(allocator.allocate(QUARTER, "n2", slices, List.of())).isEmpty();
  }

  @Test
  void theClassSelectorAppliesToo() {
    String foreign =
        """
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: f}
        spec:
          driver: other.example.com
          nodeName: n1
          pool: {name: n1, generation: 1, resourceSliceCount: 1}
          devices:
          - name: gpu-0
            attributes:
              wholeCard: {bool: false}
        """;
    List<ResourceSlice> slices =
        List.of(
            Serialization.unmarshal(foreign, ResourceSlice.class),
            slice("s0", "n1", 1, 1, devices(device("npu-0-1of4", 0, false, 25))));
    assertThat(devicesOf(allocator.allocate(QUARTER, "n1", slices, List.of())))
        .containsExactly("npu-0-1of4");
  }

  @Test
  void onlyTheNewestGenerationOfACompletePoolCounts() {
    List<ResourceSlice> slices = new ArrayList<>();
    slices.add(slice("old", "n1", 1, 1, devices(device("npu-7-1of4", 7, false, 25))));
    slices.add(slice("new", "n1", 2, 1, devices(device("npu-0-1of4", 0, false, 25))));
    assertThat(devicesOf(allocator.allocate(QUARTER, "n1", slices, List.of())))
        .containsExactly("npu-0-1of4");
    // a pool of two slices of which one is published is incomplete: nothing comes from it
    List<ResourceSlice> incomplete =
        List.of(slice("half", "n1", 3, 2, devices(device("npu-0-1of4", 0, false, 25))));
    assertThat(allocator.allocate(QUARTER, "n1", incomplete, List.of())).isEmpty();
  }

  @Test
  void devicesThatConsumeCountersLeaveTheirChipToNoOneElse() {
    String counters =
        """
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: counters}
        spec:
          driver: vnpu.huawei.com
          nodeName: n1
          pool: {name: n1, generation: 1, resourceSliceCount: 2}
          sharedCounters:
          - name: npu-0
            counters: {aicore: {value: "100"}}
          - name: npu-1
            counters: {aicore: {value: "100"}}
        """;
    String consuming =
        """
        devices:
        - name: npu-0
          attributes: {index: {int: 0}, wholeCard: {bool: true}}
          consumesCounters: [{counterSet: npu-0, counters: {aicore: {value: "100"}}}]
        - name: npu-0-1of2
          attributes: {index: {int: 0}, wholeCard: {bool: false}}
          consumesCounters: [{counterSet: npu-0, counters: {aicore: {value: "50"}}}]
        - name: npu-1
          attributes: {index: {int: 1}, wholeCard: {bool: true}}
          consumesCounters: [{counterSet: npu-1, counters: {aicore: {value: "100"}}}]
        """;
    List<ResourceSlice> slices =
        List.of(
            Serialization.unmarshal(counters, ResourceSlice.class),
            slice("devices", "n1", 1, 2, consuming));
    ResourceClaim half =
        allocated(QUARTER, allocator.allocate(QUARTER, "n1", slices, List.of()).orElseThrow());
    ResourceClaim whole =
        claim(
            """
            requests:
            - name: npu
              exactly:
                deviceClassName: vnpu.huawei.com
                selectors:
                - cel: {expression: 'device.attributes["vnpu.huawei.com"].wholeCard'}
            """);
    // npu-0 is free as a device, but its chip's counters went to npu-0-1of2
    assertThat(devicesOf(allocator.allocate(whole, "n1", slices, List.of(half))))
        .containsExactly("npu-1");
  }

  @Test
  void aSharedDeviceGivesEachClaimItsRoundedCapacityUntilItIsFull() {
    String shared =
        """
        devices:
        - name: npu-0
          allowMultipleAllocations: true
          attributes: {index: {int: 0}, wholeCard: {bool: false}}
          capacity:
            aiCore:
              value: "100"
              requestPolicy: {default: "100", validRange: {min: "1", max: "100", step: "1"}}
            memory:
              value: 32Gi
              requestPolicy: {default: 1Gi, validRange: {min: 1Gi, max: 32Gi, step: 1Gi}}
        - name: npu-1
          allowMultipleAllocations: true
          attributes: {index: {int: 1}, wholeCard: {bool: false}}
          capacity:
            aiCore:
              value: "100"
              requestPolicy: {default: "100", validRange: {min: "1", max: "100", step: "1"}}
            memory:
              value: 32Gi
              requestPolicy: {default: 1Gi, validRange: {min: 1Gi, max: 32Gi, step: 1Gi}}
        """;
    List<ResourceSlice> slices = List.of(slice("s", "n1", 1, 1, shared));
    ResourceClaim sixty =
        claim(
            """
            requests:
            - name: npu
              exactly:
                deviceClassName: vnpu.huawei.com
                capacity: {requests: {aiCore: "60", memory: 1536Mi}}
            """);
    AllocationResult first = allocator.allocate(sixty, "n1", slices, List.of()).orElseThrow();
    DeviceRequestAllocationResult result = first.getDevices().getResults().get(0);
    assertThat(result.getDevice()).isEqualTo("npu-0");
    assertThat(result.getShareID()).isNotBlank();
    // 1.5 GiB rounds up to the 1 GiB step above the minimum: 2 GiB
    assertThat(result.getConsumedCapacity().get("memory").toString()).isEqualTo("2147483648");
    assertThat(result.getConsumedCapacity().get("aiCore").toString()).isEqualTo("60");
    // 60 + 60 > 100 on npu-0: the second goes to npu-1
    assertThat(devicesOf(allocator.allocate(sixty, "n1", slices, List.of(allocated(sixty, first)))))
        .containsExactly("npu-1");
    // a claim that names no capacity takes the policy's default: all 100 AI Core
    ResourceClaim plain =
        claim(
            """
            requests:
            - name: npu
              exactly: {deviceClassName: vnpu.huawei.com}
            """);
    assertThat(devicesOf(allocator.allocate(plain, "n1", slices, List.of(allocated(sixty, first)))))
        .containsExactly("npu-1");
  }

  @Test
  void firstAvailableTriesSubRequestsInOrderAndNamesTheOneTaken() {
    List<ResourceSlice> slices =
        List.of(slice("s0", "n1", 1, 1, devices(device("npu-0-1of4", 0, false, 25))));
    ResourceClaim claim =
        claim(
            """
            requests:
            - name: npu
              firstAvailable:
              - name: whole
                deviceClassName: vnpu.huawei.com
                selectors:
                - cel: {expression: 'device.attributes["vnpu.huawei.com"].wholeCard'}
              - name: quarter
                deviceClassName: vnpu.huawei.com
            """);
    AllocationResult result = allocator.allocate(claim, "n1", slices, List.of()).orElseThrow();
    assertThat(result.getDevices().getResults().get(0).getRequest()).isEqualTo("npu/quarter");
  }

  @Test
  void matchAttributeKeepsAClaimsDevicesOnOneChip() {
    List<ResourceSlice> slices =
        List.of(
            slice(
                "s0",
                "n1",
                1,
                1,
                devices(
                    device("npu-0-1of4", 0, false, 25),
                    device("npu-1-1of4", 1, false, 25),
                    device("npu-1-2of4", 1, false, 25))));
    ResourceClaim two =
        claim(
            """
            requests:
            - name: npu
              exactly: {deviceClassName: vnpu.huawei.com, count: 2}
            constraints:
            - matchAttribute: vnpu.huawei.com/index
            """);
    assertThat(devicesOf(allocator.allocate(two, "n1", slices, List.of())))
        .containsExactly("npu-1-1of4", "npu-1-2of4");
  }

  @Test
  void anUnknownClassIsAnError() {
    ResourceClaim claim =
        claim(
            """
            requests:
            - name: npu
              exactly: {deviceClassName: nope}
            """);
    List<ResourceSlice> slices =
        List.of(slice("s0", "n1", 1, 1, devices(device("npu-0-1of4", 0, false, 25))));
    assertThatThrownBy(() -> allocator.allocate(claim, "n1", slices, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("device class nope does not exist");
  }
}
