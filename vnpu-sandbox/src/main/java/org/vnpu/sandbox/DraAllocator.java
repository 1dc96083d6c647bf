package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyRange;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.vnpu.kube.DeviceSelectors;

/**
 * kube-scheduler's DRA allocator for one claim on one node, step by step as upstream's {@code
 * staging/src/k8s.io/dynamic-resource-allocation/structured/internal/}: the node's pools ({@code
 * stable/pools_stable.go}, {@code GatherPools}: slices with this node's name, the newest generation
 * of each pool, an incomplete pool skipped), then a depth-first search ({@code
 * allocator_stable.go}, {@code allocateOne}) over the requests in order — a {@code firstAvailable}
 * request tries its sub-requests in order — and for each device wanted, the devices of each pool,
 * slice by slice, in the slice's order; a device is taken when it is not in use, matches the
 * class's and the request's selectors ({@code isSelectable}), its counters are left in the pool's
 * counter sets ({@code incubating/allocator_incubating.go}, {@code checkAvailableCounters}) and,
 * for a device many claims share ({@code allowMultipleAllocations}), its capacity is left after
 * rounding the request by the device's policy ({@code incubating/consumable_capacity.go}, {@code
 * cmpRequestOverCapacity}); {@code matchAttribute} constraints hold across the claim. The first
 * full solution wins: there is no scoring.
 *
 * <p>Upstream takes pools from a Go map and slices in the informer's order, neither of which a
 * driver controls; the order given here is the order used, so callers that measure order effects
 * shuffle the slices. Not emulated, refused with an error: {@code allocationMode: All}, admin
 * access, device taints and binding conditions.
 */
public final class DraAllocator {

  private record DeviceId(String driver, String pool, String device) {}

  private record Candidate(DeviceId id, Device device) {}

  /** One device wanted: a request (or one of its sub-requests) and how many. */
  private record Want(String request, ExactDeviceRequest exactly, long count) {}

  private final DeviceSelectors selectors;
  private final Map<String, DeviceClass> classes;

  public DraAllocator(DeviceSelectors selectors, Map<String, DeviceClass> classes) {
    this.selectors = selectors;
    this.classes = Map.copyOf(classes);
  }

  /**
   * The allocation of {@code claim} on {@code node}, or empty when the node cannot satisfy it.
   *
   * @param slices every ResourceSlice the scheduler sees, in the order to try them
   * @param allocated the claims already allocated (their devices are in use)
   * @throws IllegalArgumentException when the claim cannot be allocated anywhere: an unknown class,
   *     a selector that fails, a feature not emulated
   */
  public Optional<AllocationResult> allocate(
      ResourceClaim claim, String node, List<ResourceSlice> slices, List<ResourceClaim> allocated) {
    Search search = new Search(node, slices, allocated);
    List<List<Want>> requests = new ArrayList<>();
    for (DeviceRequest request : claim.getSpec().getDevices().getRequests()) {
      requests.add(alternatives(request));
    }
    List<DeviceConstraint> constraints =
        Objects.requireNonNullElse(claim.getSpec().getDevices().getConstraints(), List.of());
    return search.solve(requests, constraints) ? Optional.of(search.result()) : Optional.empty();
  }

  private static List<Want> alternatives(DeviceRequest request) {
    if (request.getExactly() != null) {
      return List.of(want(request.getName(), request.getExactly()));
    }
    List<Want> wants = new ArrayList<>();
    for (DeviceSubRequest sub : request.getFirstAvailable()) {
      ExactDeviceRequest exactly = new ExactDeviceRequest();
      exactly.setDeviceClassName(sub.getDeviceClassName());
      exactly.setSelectors(sub.getSelectors());
      exactly.setAllocationMode(sub.getAllocationMode());
      exactly.setCount(sub.getCount());
      exactly.setCapacity(sub.getCapacity());
      wants.add(want(request.getName() + "/" + sub.getName(), exactly));
    }
    return wants;
  }

  private static Want want(String name, ExactDeviceRequest exactly) {
    if ("All".equals(exactly.getAllocationMode())) {
      throw new IllegalArgumentException(
          "request " + name + ": allocationMode All is not emulated");
    }
    if (Boolean.TRUE.equals(exactly.getAdminAccess())) {
      throw new IllegalArgumentException("request " + name + ": adminAccess is not emulated");
    }
    return new Want(name, exactly, Objects.requireNonNullElse(exactly.getCount(), 1L));
  }

  /** One allocation attempt: what is in use, and the devices chosen so far. */
  private final class Search {
    private final List<Candidate> candidates = new ArrayList<>();
    private final Map<String, Map<String, BigDecimal>> countersLeft = new HashMap<>();
    private final Map<DeviceId, Map<String, BigDecimal>> consumed = new HashMap<>();
    private final List<DeviceId> inUse = new ArrayList<>();
    private final List<DeviceRequestAllocationResult> chosen = new ArrayList<>();
    private final List<Candidate> chosenDevices = new ArrayList<>();

    Search(String node, List<ResourceSlice> slices, List<ResourceClaim> allocated) {
      Map<String, List<ResourceSlice>> pools = new LinkedHashMap<>();
      for (ResourceSlice slice : slices) {
        if (!node.equals(slice.getSpec().getNodeName())) {
          continue;
        }
        String key = slice.getSpec().getDriver() + "/" + slice.getSpec().getPool().getName();
        List<ResourceSlice> pool = pools.computeIfAbsent(key, k -> new ArrayList<>());
        long generation = slice.getSpec().getPool().getGeneration();
        if (!pool.isEmpty() && generation < pool.get(0).getSpec().getPool().getGeneration()) {
          continue; // out-dated
        }
        if (!pool.isEmpty() && generation > pool.get(0).getSpec().getPool().getGeneration()) {
          pool.clear(); // newer, replaces all old slices
        }
        pool.add(slice);
      }
      for (List<ResourceSlice> pool : pools.values()) {
        if (pool.size() != pool.get(0).getSpec().getPool().getResourceSliceCount()) {
          continue; // incomplete: nothing is allocated from it
        }
        for (ResourceSlice slice : pool) {
          for (CounterSet set :
              Objects.requireNonNullElse(
                  slice.getSpec().getSharedCounters(), List.<CounterSet>of())) {
            Map<String, BigDecimal> counters = new HashMap<>();
            set.getCounters()
                .forEach((name, counter) -> counters.put(name, amount(counter.getValue())));
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

    private static String poolKey(ResourceSlice slice) {
      return slice.getSpec().getDriver() + "/" + slice.getSpec().getPool().getName();
    }

    boolean solve(List<List<Want>> requests, List<DeviceConstraint> constraints) {
      return next(requests, 0, constraints);
    }

    /** {@code allocateOne} at request {@code r}: its sub-requests, if any, one after the other. */
    private boolean next(List<List<Want>> requests, int r, List<DeviceConstraint> constraints) {
      if (r == requests.size()) {
        return true;
      }
      for (int alt = 0; alt < requests.get(r).size(); alt++) {
        if (tryWant(requests, r, alt, 0, constraints)) {
          return true;
        }
      }
      return false;
    }

    private boolean tryWant(
        List<List<Want>> requests, int r, int alt, long index, List<DeviceConstraint> constraints) {
      Want want = requests.get(r).get(alt);
      if (index == want.count()) {
        return next(requests, r + 1, constraints);
      }
      for (Candidate candidate : candidates) {
        Map<String, Quantity> capacity = fits(candidate, want);
        if (capacity == null || !holds(constraints, want, candidate)) {
          continue;
        }
        take(candidate, capacity);
        chosen.add(resultOf(want, candidate, capacity));
        chosenDevices.add(candidate);
        if (tryWant(requests, r, alt, index + 1, constraints)) {
          return true;
        }
        chosen.remove(chosen.size() - 1);
        chosenDevices.remove(chosenDevices.size() - 1);
        give(candidate, capacity);
      }
      return false;
    }

    /**
     * The capacity {@code want} would consume of {@code candidate} (empty for a device used whole),
     * or null when the device cannot serve it now.
     */
    private Map<String, Quantity> fits(Candidate candidate, Want want) {
      Device device = candidate.device();
      boolean shared = Boolean.TRUE.equals(device.getAllowMultipleAllocations());
      if (!shared && inUse.contains(candidate.id())) {
        return null;
      }
      if (!selectable(candidate, want)) {
        return null;
      }
      Map<String, Quantity> asked = consumption(candidate, want.exactly());
      if (asked == null) {
        return null;
      }
      for (DeviceCounterConsumption consumption :
          Objects.requireNonNullElse(
              device.getConsumesCounters(), List.<DeviceCounterConsumption>of())) {
        Map<String, BigDecimal> left = countersLeft(candidate, consumption);
        if (left == null) {
          return null; // a counter set the pool does not have
        }
        for (Map.Entry<String, io.fabric8.kubernetes.api.model.resource.v1.Counter> counter :
            consumption.getCounters().entrySet()) {
          BigDecimal available = left.get(counter.getKey());
          if (available == null || amount(counter.getValue().getValue()).compareTo(available) > 0) {
            return null;
          }
        }
      }
      return shared ? asked : Map.of();
    }

    private boolean selectable(Candidate candidate, Want want) {
      ExactDeviceRequest exactly = want.exactly();
      DeviceClass deviceClass = classes.get(exactly.getDeviceClassName());
      if (deviceClass == null) {
        throw new IllegalArgumentException(
            "request "
                + want.request()
                + ": device class "
                + exactly.getDeviceClassName()
                + " does not exist");
      }
      return matchAll(deviceClass.getSpec().getSelectors(), candidate)
          && matchAll(exactly.getSelectors(), candidate);
    }

    private boolean matchAll(List<DeviceSelector> list, Candidate candidate) {
      for (DeviceSelector selector : Objects.requireNonNullElse(list, List.<DeviceSelector>of())) {
        if (!selectors.matches(
            selector.getCel().getExpression(), candidate.id().driver(), candidate.device())) {
          return false;
        }
      }
      return true;
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
        if (range != null
            && range.getMax() != null
            && amount.compareTo(amount(range.getMax())) > 0) {
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

    private boolean holds(List<DeviceConstraint> constraints, Want want, Candidate candidate) {
      for (DeviceConstraint constraint : constraints) {
        if (constraint.getMatchAttribute() == null) {
          throw new IllegalArgumentException(
              "constraint " + constraint + ": only matchAttribute is emulated");
        }
        List<String> names = Objects.requireNonNullElse(constraint.getRequests(), List.of());
        if (!names.isEmpty() && !names.contains(want.request()) && !names.contains(base(want))) {
          continue;
        }
        Object value = attribute(candidate, constraint.getMatchAttribute());
        if (value == null) {
          return false;
        }
        for (int i = 0; i < chosenDevices.size(); i++) {
          String request = chosen.get(i).getRequest();
          boolean applies =
              names.isEmpty()
                  || names.contains(request)
                  || names.contains(request.split("/", 2)[0]);
          if (applies
              && !value.equals(attribute(chosenDevices.get(i), constraint.getMatchAttribute()))) {
            return false;
          }
        }
      }
      return true;
    }

    private void take(Candidate candidate, Map<String, Quantity> capacity) {
      shift(candidate, capacity, BigDecimal.ONE.negate());
    }

    private void give(Candidate candidate, Map<String, Quantity> capacity) {
      shift(candidate, capacity, BigDecimal.ONE);
    }

    /** Moves the device's counters and capacity: -1 takes them, +1 gives them back. */
    private void shift(Candidate candidate, Map<String, Quantity> capacity, BigDecimal sign) {
      Device device = candidate.device();
      if (Boolean.TRUE.equals(device.getAllowMultipleAllocations())) {
        Map<String, BigDecimal> used =
            consumed.computeIfAbsent(candidate.id(), k -> new HashMap<>());
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
      for (DeviceCounterConsumption consumption :
          Objects.requireNonNullElse(
              device.getConsumesCounters(), List.<DeviceCounterConsumption>of())) {
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

    /** What is left of the counter set a device consumes from, or null when its pool has none. */
    private Map<String, BigDecimal> countersLeft(
        Candidate candidate, DeviceCounterConsumption consumption) {
      return countersLeft.get(
          candidate.id().driver()
              + "/"
              + candidate.id().pool()
              + "/"
              + consumption.getCounterSet());
    }

    AllocationResult result() {
      DeviceAllocationResult devices = new DeviceAllocationResult();
      devices.setResults(List.copyOf(chosen));
      AllocationResult result = new AllocationResult();
      result.setDevices(devices);
      return result;
    }
  }

  private static DeviceRequestAllocationResult resultOf(
      Want want, Candidate candidate, Map<String, Quantity> capacity) {
    DeviceRequestAllocationResult result = new DeviceRequestAllocationResult();
    result.setRequest(want.request());
    result.setDriver(candidate.id().driver());
    result.setPool(candidate.id().pool());
    result.setDevice(candidate.id().device());
    if (Boolean.TRUE.equals(candidate.device().getAllowMultipleAllocations())) {
      result.setConsumedCapacity(capacity);
      result.setShareID(UUID.randomUUID().toString());
    }
    return result;
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
            .map(DraAllocator::amount)
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
    BigDecimal steps = value.subtract(min).divide(step, 0, java.math.RoundingMode.CEILING);
    return min.add(steps.multiply(step));
  }

  private static BigDecimal amount(Quantity quantity) {
    return Quantity.getAmountInBytes(quantity);
  }

  private static String bare(String name, String driver) {
    return name.startsWith(driver + "/") ? name.substring(driver.length() + 1) : name;
  }

  private static String base(Want want) {
    return want.request().split("/", 2)[0];
  }

  private static Object attribute(Candidate candidate, String qualified) {
    Map<String, DeviceAttribute> attributes =
        Objects.requireNonNullElse(candidate.device().getAttributes(), Map.of());
    DeviceAttribute attribute = attributes.get(qualified);
    if (attribute == null && qualified.startsWith(candidate.id().driver() + "/")) {
      attribute = attributes.get(bare(qualified, candidate.id().driver()));
    }
    if (attribute == null) {
      return null;
    }
    if (attribute.getString() != null) {
      return attribute.getString();
    }
    if (attribute.getInt() != null) {
      return attribute.getInt();
    }
    return attribute.getBool() != null ? attribute.getBool() : attribute.getVersion();
  }
}
