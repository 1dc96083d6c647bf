package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyRange;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One node's devices for one allocation attempt of {@link DraAllocator}, and what is used of them:
 * the node's pools ({@code stable/pools_stable.go}, {@code GatherPools}: slices with this node's
 * name, the newest generation of each pool, an incomplete pool skipped), the devices in use, what
 * is left of each pool's counter sets ({@code incubating/allocator_incubating.go}, {@code
 * checkAvailableCounters}) and of each shared device's capacity ({@code
 * incubating/consumable_capacity.go}). Not thread-safe: one search owns it.
 */
final class DraInventory {

  /** A device by its driver, pool and name. */
  record DeviceId(String driver, String pool, String device) {}

  /** A device of the node's pools, in the order to try them. */
  record Candidate(DeviceId id, Device device) {

    boolean shared() {
      return Boolean.TRUE.equals(device.getAllowMultipleAllocations());
    }
  }

  private final List<Candidate> candidates = new ArrayList<>();
  private final Map<String, Map<String, BigDecimal>> countersLeft = new HashMap<>();
  private final Map<DeviceId, Map<String, BigDecimal>> consumed = new HashMap<>();
  private final List<DeviceId> inUse = new ArrayList<>();

  /**
   * @param slices every ResourceSlice the scheduler sees, in the order to try them
   * @param allocated the claims already allocated (their devices are in use)
   * @throws IllegalArgumentException when a device has taints, which are not emulated
   */
  DraInventory(String node, List<ResourceSlice> slices, List<ResourceClaim> allocated) {
    for (List<ResourceSlice> pool : completePools(node, slices)) {
      pool.forEach(this::add);
    }
    for (ResourceClaim claim : allocated) {
      if (claim.getStatus() == null || claim.getStatus().getAllocation() == null) {
        continue;
      }
      for (DeviceRequestAllocationResult result :
          claim.getStatus().getAllocation().getDevices().getResults()) {
        DeviceId id = new DeviceId(result.getDriver(), result.getPool(), result.getDevice());
        candidates.stream()
            .filter(candidate -> candidate.id().equals(id))
            .findFirst()
            .ifPresent(candidate -> take(candidate, result.getConsumedCapacity()));
      }
    }
  }

  /** The newest generation of each of the node's pools, those with all their slices. */
  private static Collection<List<ResourceSlice>> completePools(
      String node, List<ResourceSlice> slices) {
    Map<String, List<ResourceSlice>> pools = new LinkedHashMap<>();
    for (ResourceSlice slice : slices) {
      if (!node.equals(slice.getSpec().getNodeName())) {
        continue;
      }
      List<ResourceSlice> pool = pools.computeIfAbsent(poolKey(slice), k -> new ArrayList<>());
      long generation = slice.getSpec().getPool().getGeneration();
      if (!pool.isEmpty() && generation < pool.get(0).getSpec().getPool().getGeneration()) {
        continue; // out-dated
      }
      if (!pool.isEmpty() && generation > pool.get(0).getSpec().getPool().getGeneration()) {
        pool.clear(); // newer, replaces all old slices
      }
      pool.add(slice);
    }
    pools
        .values()
        .removeIf(pool -> pool.size() != pool.get(0).getSpec().getPool().getResourceSliceCount());
    return pools.values();
  }

  private static String poolKey(ResourceSlice slice) {
    return slice.getSpec().getDriver() + "/" + slice.getSpec().getPool().getName();
  }

  /** The slice's counter sets and devices. */
  private void add(ResourceSlice slice) {
    for (CounterSet set :
        Objects.requireNonNullElse(slice.getSpec().getSharedCounters(), List.<CounterSet>of())) {
      Map<String, BigDecimal> counters = new HashMap<>();
      set.getCounters().forEach((name, counter) -> counters.put(name, amount(counter.getValue())));
      countersLeft.put(poolKey(slice) + "/" + set.getName(), counters);
    }
    for (Device device :
        Objects.requireNonNullElse(slice.getSpec().getDevices(), List.<Device>of())) {
      if (device.getTaints() != null && !device.getTaints().isEmpty()) {
        throw new IllegalArgumentException(
            "device " + device.getName() + ": taints are not emulated");
      }
      candidates.add(
          new Candidate(
              new DeviceId(
                  slice.getSpec().getDriver(),
                  slice.getSpec().getPool().getName(),
                  device.getName()),
              device));
    }
  }

  /** The node's devices, pool by pool and slice by slice. */
  List<Candidate> candidates() {
    return candidates;
  }

  /** Whether the device is used whole by a claim. */
  boolean taken(Candidate candidate) {
    return !candidate.shared() && inUse.contains(candidate.id());
  }

  /**
   * The capacity {@code exactly} would consume of {@code candidate} (empty for a device used
   * whole), or null when its counters or its capacity are not left. Whether it is {@linkplain
   * #taken taken} and whether it matches the selectors are the caller's to ask first.
   */
  Map<String, Quantity> fits(Candidate candidate, ExactDeviceRequest exactly) {
    Map<String, Quantity> asked = consumption(candidate, exactly);
    if (asked == null) {
      return null;
    }
    for (DeviceCounterConsumption consumption : consumptions(candidate)) {
      Map<String, BigDecimal> left = countersLeft(candidate, consumption);
      if (left == null) {
        return null; // a counter set the pool does not have
      }
      for (Map.Entry<String, Counter> counter : consumption.getCounters().entrySet()) {
        BigDecimal available = left.get(counter.getKey());
        if (available == null || amount(counter.getValue().getValue()).compareTo(available) > 0) {
          return null;
        }
      }
    }
    return candidate.shared() ? asked : Map.of();
  }

  /**
   * {@code cmpRequestOverCapacity}: per capacity of the device, the request rounded up by its
   * policy (the policy's default, else the whole capacity, when not asked); null when a request
   * names a capacity the device lacks, breaks the policy's maximum, or does not fit what is left.
   */
  private Map<String, Quantity> consumption(Candidate candidate, ExactDeviceRequest exactly) {
    Map<String, Quantity> requests =
        exactly.getCapacity() == null || exactly.getCapacity().getRequests() == null
            ? Map.of()
            : exactly.getCapacity().getRequests();
    Map<String, DeviceCapacity> capacity =
        Objects.requireNonNullElse(candidate.device().getCapacity(), Map.of());
    for (String name : requests.keySet()) {
      if (!capacity.containsKey(bare(name, candidate.id().driver()))) {
        return null;
      }
    }
    Map<String, BigDecimal> used = consumed.getOrDefault(candidate.id(), Map.of());
    Map<String, Quantity> consumes = new LinkedHashMap<>();
    for (Map.Entry<String, DeviceCapacity> entry : capacity.entrySet()) {
      Quantity asked = requests.get(entry.getKey());
      if (asked == null) {
        asked = requests.get(candidate.id().driver() + "/" + entry.getKey());
      }
      CapacityRequestPolicy policy = entry.getValue().getRequestPolicy();
      BigDecimal amount = rounded(asked, entry.getValue().getValue(), policy);
      CapacityRequestPolicyRange range = policy == null ? null : policy.getValidRange();
      if (range != null && range.getMax() != null && amount.compareTo(amount(range.getMax())) > 0) {
        return null;
      }
      BigDecimal total = used.getOrDefault(entry.getKey(), BigDecimal.ZERO).add(amount);
      if (total.compareTo(amount(entry.getValue().getValue())) > 0) {
        return null;
      }
      consumes.put(entry.getKey(), new Quantity(amount.toPlainString()));
    }
    return consumes;
  }

  /** Takes the device's counters and {@code capacity} of it (for a shared device), or all of it. */
  void take(Candidate candidate, Map<String, Quantity> capacity) {
    shift(candidate, capacity, BigDecimal.ONE.negate());
  }

  /** Gives back what {@link #take} took. */
  void give(Candidate candidate, Map<String, Quantity> capacity) {
    shift(candidate, capacity, BigDecimal.ONE);
  }

  /** Moves the device's counters and capacity: -1 takes them, +1 gives them back. */
  private void shift(Candidate candidate, Map<String, Quantity> capacity, BigDecimal sign) {
    if (candidate.shared()) {
      Map<String, BigDecimal> used = consumed.computeIfAbsent(candidate.id(), k -> new HashMap<>());
      if (capacity != null) {
        capacity.forEach(
            (name, amount) ->
                used.merge(name, amount(amount).multiply(sign.negate()), BigDecimal::add));
      }
    } else if (sign.signum() < 0) {
      inUse.add(candidate.id());
    } else {
      inUse.remove(candidate.id());
    }
    for (DeviceCounterConsumption consumption : consumptions(candidate)) {
      Map<String, BigDecimal> left = countersLeft(candidate, consumption);
      if (left != null) {
        consumption
            .getCounters()
            .forEach(
                (name, counter) ->
                    left.merge(name, amount(counter.getValue()).multiply(sign), BigDecimal::add));
      }
    }
  }

  private static List<DeviceCounterConsumption> consumptions(Candidate candidate) {
    return Objects.requireNonNullElse(
        candidate.device().getConsumesCounters(), List.<DeviceCounterConsumption>of());
  }

  /** What is left of the counter set a device consumes from, or null when its pool has none. */
  private Map<String, BigDecimal> countersLeft(
      Candidate candidate, DeviceCounterConsumption consumption) {
    return countersLeft.get(
        candidate.id().driver() + "/" + candidate.id().pool() + "/" + consumption.getCounterSet());
  }

  /** {@code roundUpRange} / {@code fillEmptyRequestQuantity} of {@code consumable_capacity.go}. */
  private static BigDecimal rounded(Quantity asked, Quantity total, CapacityRequestPolicy policy) {
    if (asked == null) {
      return amount(policy != null && policy.getDefault() != null ? policy.getDefault() : total);
    }
    BigDecimal value = amount(asked);
    if (policy == null
        || policy.getValidRange() == null
        || policy.getValidRange().getMin() == null) {
      if (policy != null && policy.getValidValues() != null) {
        return policy.getValidValues().stream()
            .map(DraInventory::amount)
            .filter(valid -> valid.compareTo(value) >= 0)
            .min(BigDecimal::compareTo)
            .orElse(value);
      }
      return value;
    }
    BigDecimal min = amount(policy.getValidRange().getMin());
    if (value.compareTo(min) <= 0) {
      return min;
    }
    if (policy.getValidRange().getStep() == null) {
      return value;
    }
    BigDecimal step = amount(policy.getValidRange().getStep());
    BigDecimal steps = value.subtract(min).divide(step, 0, RoundingMode.CEILING);
    return min.add(steps.multiply(step));
  }

  private static BigDecimal amount(Quantity quantity) {
    return Quantity.getAmountInBytes(quantity);
  }

  /** {@code name} without its {@code driver/} prefix, if it has one. */
  static String bare(String name, String driver) {
    return name.startsWith(driver + "/") ? name.substring(driver.length() + 1) : name;
  }
}
