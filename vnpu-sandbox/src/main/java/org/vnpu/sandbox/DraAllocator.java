package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.vnpu.kube.DeviceSelectors;
import org.vnpu.sandbox.DraInventory.Candidate;

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
    Search search = new Search(new DraInventory(node, slices, allocated));
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

  /** One allocation attempt: the node's devices, what is in use, and those chosen so far. */
  private final class Search {
    private final DraInventory inventory;
    private final List<DeviceRequestAllocationResult> chosen = new ArrayList<>();
    private final List<Candidate> chosenDevices = new ArrayList<>();

    Search(DraInventory inventory) {
      this.inventory = inventory;
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
      for (Candidate candidate : inventory.candidates()) {
        Map<String, Quantity> capacity = fits(candidate, want);
        if (capacity == null || !holds(constraints, want, candidate)) {
          continue;
        }
        inventory.take(candidate, capacity);
        chosen.add(resultOf(want, candidate, capacity));
        chosenDevices.add(candidate);
        if (tryWant(requests, r, alt, index + 1, constraints)) {
          return true;
        }
        chosen.remove(chosen.size() - 1);
        chosenDevices.remove(chosenDevices.size() - 1);
        inventory.give(candidate, capacity);
      }
      return false;
    }

    /**
     * The capacity {@code want} would consume of {@code candidate} (empty for a device used whole),
     * or null when the device cannot serve it now.
     */
    private Map<String, Quantity> fits(Candidate candidate, Want want) {
      if (inventory.taken(candidate) || !selectable(candidate, want)) {
        return null;
      }
      return inventory.fits(candidate, want.exactly());
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
    if (candidate.shared()) {
      result.setConsumedCapacity(capacity);
      result.setShareID(UUID.randomUUID().toString());
    }
    return result;
  }

  private static String base(Want want) {
    return want.request().split("/", 2)[0];
  }

  private static Object attribute(Candidate candidate, String qualified) {
    Map<String, DeviceAttribute> attributes =
        Objects.requireNonNullElse(candidate.device().getAttributes(), Map.of());
    DeviceAttribute attribute = attributes.get(qualified);
    if (attribute == null && qualified.startsWith(candidate.id().driver() + "/")) {
      attribute = attributes.get(DraInventory.bare(qualified, candidate.id().driver()));
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
