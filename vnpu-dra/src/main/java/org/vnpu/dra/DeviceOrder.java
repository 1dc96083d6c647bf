package org.vnpu.dra;

import java.util.Comparator;
import java.util.List;
import org.vnpu.api.WireValue;

/**
 * The order of a node's devices in its ResourceSlices. kube-scheduler's allocator takes the first
 * free device that matches, in slice order, with no scoring ({@code allocator_stable.go}, {@code
 * allocateOne}), so a static order steers which chip a claim lands on without re-publishing. It
 * approximates a policy, not more: once claims leave, the first free device is not always the
 * policy's choice (docs/benchmarks.md, "DRA: device order and the policy": 91 % of arrivals agree
 * with binpack under {@link #BINPACK}, 89 % with spread under {@link #SPREAD}).
 */
public enum DeviceOrder implements WireValue {
  /** Chip by chip: the allocator fills a chip before it takes the next (first fit). */
  BINPACK("binpack"),
  /** The first slice of every chip, then the second: the allocator spreads slices over chips. */
  SPREAD("spread");

  private final String wireName;

  DeviceOrder(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }

  /** {@code devices} (chip by chip, as {@link NodeDevices#of} lists them) in this order. */
  List<NodeDevices.NpuDevice> sort(List<NodeDevices.NpuDevice> devices) {
    return switch (this) {
      case BINPACK -> devices;
      case SPREAD ->
          devices.stream()
              .sorted(
                  Comparator.comparingInt(NodeDevices.NpuDevice::slot)
                      .thenComparingInt(device -> device.chip().index()))
              .toList();
    };
  }
}
