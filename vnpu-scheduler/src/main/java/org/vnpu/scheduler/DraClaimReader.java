package org.vnpu.scheduler;

import static org.vnpu.scheduler.DraDevices.CHARGED_POLICY;
import static org.vnpu.scheduler.DraDevices.capacity;
import static org.vnpu.scheduler.DraDevices.mebibytes;
import static org.vnpu.scheduler.DraDevices.wholeCard;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.DraDeviceAttributes;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.kube.DeviceSelectors;

/**
 * How the scheduler reads a ResourceClaim of one DRA driver: the requests for the driver's class
 * (exactly, or the sub-requests in order), the allocation's results for the driver, and what each
 * request stands for on a node's devices, as the engine's container requests.
 */
final class DraClaimReader {

  private static final Logger LOG = LoggerFactory.getLogger(DraClaimReader.class);

  private final String driver;
  private final DeviceSelectors selectors = new DeviceSelectors();

  /**
   * @param driver the DRA driver name; its DeviceClass has the same name (the chart's)
   */
  DraClaimReader(String driver) {
    this.driver = driver;
  }

  /** Per vNPU request of the claims, what it stands for on this node; empty when one cannot. */
  Optional<List<ContainerRequest>> requests(
      List<ResourceClaim> pending, Collection<Device> devices) {
    List<ContainerRequest> asked = new ArrayList<>();
    for (ResourceClaim claim : pending) {
      for (DeviceRequest request : ours(claim)) {
        Optional<ContainerRequest> first = Optional.empty();
        for (ExactDeviceRequest exactly : alternatives(request)) {
          first = request(claim, request.getName(), exactly, devices);
          if (first.isPresent()) {
            break;
          }
        }
        if (first.isEmpty()) {
          return Optional.empty();
        }
        asked.add(first.get());
      }
    }
    return Optional.of(asked);
  }

  /** What the request stands for on the first device of {@code devices} its selectors match. */
  private Optional<ContainerRequest> request(
      ResourceClaim claim, String name, ExactDeviceRequest exactly, Collection<Device> devices) {
    int count = Math.toIntExact(Objects.requireNonNullElse(exactly.getCount(), 1L));
    String container = claim.getMetadata().getName() + "/" + name;
    for (Device device : devices) {
      if (!matches(exactly.getSelectors(), device)) {
        continue;
      }
      if (Boolean.TRUE.equals(device.getAllowMultipleAllocations())) {
        Map<String, Quantity> capacity =
            exactly.getCapacity() == null || exactly.getCapacity().getRequests() == null
                ? Map.of()
                : exactly.getCapacity().getRequests();
        int cores =
            asked(capacity, device, DraDeviceAttributes.AI_CORE_CAPACITY)
                .setScale(0, RoundingMode.CEILING)
                .intValue();
        long memory = mebibytes(asked(capacity, device, DraDeviceAttributes.MEMORY_CAPACITY));
        return Optional.of(
            new ContainerRequest(
                container, false, count, cores, memory, ChipTypes.ANY, CHARGED_POLICY));
      }
      if (wholeCard(device)) {
        return Optional.of(
            new ContainerRequest(
                container,
                false,
                count,
                ContainerRequest.WHOLE_CARD_CORES,
                null,
                ChipTypes.ANY,
                null));
      }
      return Optional.of(
          new ContainerRequest(
              container,
              false,
              count,
              capacity(device, DraDeviceAttributes.AI_CORE_CAPACITY).intValue(),
              mebibytes(capacity(device, DraDeviceAttributes.MEMORY_CAPACITY)),
              ChipTypes.ANY,
              CHARGED_POLICY));
    }
    return Optional.empty();
  }

  /** The capacity a shared device gives a request: what it asks, else the policy's default. */
  private static BigDecimal asked(Map<String, Quantity> requests, Device device, String name) {
    Quantity quantity = requests.get(name);
    if (quantity != null) {
      return Quantity.getAmountInBytes(quantity);
    }
    DeviceCapacity capacity = device.getCapacity().get(name);
    CapacityRequestPolicy policy = capacity.getRequestPolicy();
    return Quantity.getAmountInBytes(
        policy != null && policy.getDefault() != null ? policy.getDefault() : capacity.getValue());
  }

  private boolean matches(List<DeviceSelector> list, Device device) {
    try {
      for (DeviceSelector selector : Objects.requireNonNullElse(list, List.<DeviceSelector>of())) {
        if (!selectors.matches(selector.getCel().getExpression(), driver, device)) {
          return false;
        }
      }
      return true;
    } catch (IllegalArgumentException e) {
      LOG.debug("selector failed on device {}: {}", device.getName(), e.getMessage());
      return false;
    }
  }

  /** The claim's requests for this driver's class: exactly, or the sub-requests in order. */
  List<DeviceRequest> ours(ResourceClaim claim) {
    if (claim.getSpec() == null || claim.getSpec().getDevices() == null) {
      return List.of();
    }
    return Objects.requireNonNullElse(
            claim.getSpec().getDevices().getRequests(), List.<DeviceRequest>of())
        .stream()
        .filter(request -> alternatives(request).stream().anyMatch(this::ourClass))
        .toList();
  }

  private boolean ourClass(ExactDeviceRequest exactly) {
    return driver.equals(exactly.getDeviceClassName());
  }

  private List<ExactDeviceRequest> alternatives(DeviceRequest request) {
    if (request.getExactly() != null) {
      return List.of(request.getExactly());
    }
    List<ExactDeviceRequest> exact = new ArrayList<>();
    for (DeviceSubRequest sub :
        Objects.requireNonNullElse(request.getFirstAvailable(), List.<DeviceSubRequest>of())) {
      ExactDeviceRequest exactly = new ExactDeviceRequest();
      exactly.setDeviceClassName(sub.getDeviceClassName());
      exactly.setSelectors(sub.getSelectors());
      exactly.setCount(sub.getCount());
      exactly.setCapacity(sub.getCapacity());
      exact.add(exactly);
    }
    return exact.stream().filter(this::ourClass).toList();
  }

  /** The results of the claim's allocation that name this driver; empty while unallocated. */
  List<DeviceRequestAllocationResult> allocation(ResourceClaim claim) {
    if (claim.getStatus() == null
        || claim.getStatus().getAllocation() == null
        || claim.getStatus().getAllocation().getDevices() == null) {
      return List.of();
    }
    return Objects.requireNonNullElse(
            claim.getStatus().getAllocation().getDevices().getResults(),
            List.<DeviceRequestAllocationResult>of())
        .stream()
        .filter(result -> driver.equals(result.getDriver()))
        .toList();
  }
}
