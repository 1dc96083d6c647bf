package org.vnpu.sandbox;

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
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import org.vnpu.api.KubernetesNames;

/**
 * What the API server checks and changes in a ResourceSlice before it stores one, for what a DRA
 * driver writes: each rule is ported from {@code kubernetes pkg/apis/resource/validation/
 * validation.go} (the function is named at the rule) and the dropping of gated fields from {@code
 * pkg/registry/resource/resourceslice/strategy.go}. Rules about fields no driver of ours sets
 * (taints, binding conditions, node allocatable resources, per-device node selection details) are
 * left out.
 */
final class ResourceSliceRules {

  // pkg/apis/resource/types.go
  static final int MAX_DEVICES = 128;
  static final int MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS = 64;
  static final int MAX_COUNTER_SETS = 8;
  static final int MAX_COUNTERS_PER_COUNTER_SET = 32;
  static final int MAX_COUNTER_CONSUMPTIONS_PER_DEVICE = 2;
  static final int MAX_COUNTERS_PER_CONSUMPTION = 32;
  static final int MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32;
  static final int MAX_ID_LENGTH = 32;
  static final int MAX_ATTRIBUTE_VALUE_LENGTH = 64;
  static final int POOL_NAME_MAX_LENGTH = 253;

  private static final Pattern C_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private ResourceSliceRules() {}

  /** Every rule {@code slice} breaks, as {@code field: reason}; empty when it may be stored. */
  static List<String> violations(ResourceSlice slice) {
    List<String> errors = new ArrayList<>();
    BiConsumer<String, String> error = (path, reason) -> errors.add(path + ": " + reason);
    String name = slice.getMetadata() == null ? null : slice.getMetadata().getName();
    // ValidateResourceSlice: ObjectMeta with a DNS-1123 subdomain name.
    subdomain(name, "metadata.name", error);
    ResourceSliceSpec spec = slice.getSpec();
    if (spec == null) {
      error.accept("spec", "Required value");
      return errors;
    }
    validateSpec(spec, error);
    return errors;
  }

  /** {@code validateResourceSliceSpec}. */
  private static void validateSpec(ResourceSliceSpec spec, BiConsumer<String, String> error) {
    // validateDriverName = corevalidation.ValidateCSIDriverName: at most 63, a DNS subdomain.
    if (spec.getDriver() == null || spec.getDriver().length() > 63) {
      error.accept("spec.driver", "must be a CSI driver name of at most 63 characters");
    } else {
      subdomain(spec.getDriver(), "spec.driver", error);
    }
    validatePool(spec.getPool(), error);
    int selections =
        (spec.getNodeName() != null && !spec.getNodeName().isEmpty() ? 1 : 0)
            + (spec.getNodeSelector() != null ? 1 : 0)
            + (Boolean.TRUE.equals(spec.getAllNodes()) ? 1 : 0)
            + (Boolean.TRUE.equals(spec.getPerDeviceNodeSelection()) ? 1 : 0);
    if (selections != 1) {
      error.accept(
          "spec",
          "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is"
              + " required");
    }
    // fabric8 sends no empty list, so an empty one here was absent on the wire.
    if (!empty(spec.getSharedCounters()) && !empty(spec.getDevices())) {
      error.accept("spec", "only one of `sharedCounters` or `devices` is allowed");
    }
    List<Device> devices = devices(spec);
    boolean consumes = devices.stream().anyMatch(d -> !empty(d.getConsumesCounters()));
    int maxDevices = consumes ? MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS : MAX_DEVICES;
    if (devices.size() > maxDevices) {
      error.accept(
          "spec.devices", "Too many: " + devices.size() + ": must have at most " + maxDevices);
    } else {
      Set<String> names = new HashSet<>();
      for (int i = 0; i < devices.size(); i++) {
        Device device = devices.get(i);
        if (!names.add(String.valueOf(device.getName()))) {
          error.accept("spec.devices[" + i + "]", "Duplicate value: " + device.getName());
        }
        validateDevice(device, "spec.devices[" + i + "]", error);
      }
    }
    List<CounterSet> sets = spec.getSharedCounters() == null ? List.of() : spec.getSharedCounters();
    if (sets.size() > MAX_COUNTER_SETS) {
      error.accept(
          "spec.sharedCounters",
          "Too many: " + sets.size() + ": must have at most " + MAX_COUNTER_SETS);
      return;
    }
    Set<String> setNames = new HashSet<>();
    for (int i = 0; i < sets.size(); i++) {
      String path = "spec.sharedCounters[" + i + "]";
      CounterSet set = sets.get(i);
      if (!setNames.add(String.valueOf(set.getName()))) {
        error.accept(path, "Duplicate value: " + set.getName());
      }
      // validateCounterSet: validateCounterName = ValidateDNS1123Label.
      label(set.getName(), path + ".name", error);
      counters(set.getCounters(), MAX_COUNTERS_PER_COUNTER_SET, path + ".counters", error);
    }
  }

  /** {@code validateResourcePool} with {@code validatePoolName}. */
  private static void validatePool(ResourcePool pool, BiConsumer<String, String> error) {
    if (pool == null || pool.getName() == null || pool.getName().isEmpty()) {
      error.accept("spec.pool.name", "Required value");
      return;
    }
    if (pool.getName().length() > POOL_NAME_MAX_LENGTH) {
      error.accept("spec.pool.name", "Too long: must have at most " + POOL_NAME_MAX_LENGTH);
    }
    for (String part : pool.getName().split("/", -1)) {
      subdomain(part, "spec.pool.name", error);
    }
    if (pool.getResourceSliceCount() == null || pool.getResourceSliceCount() <= 0) {
      error.accept("spec.pool.resourceSliceCount", "must be greater than zero");
    }
    if (pool.getGeneration() == null || pool.getGeneration() < 0) {
      error.accept("spec.pool.generation", "must be greater than or equal to zero");
    }
  }

  /** {@code validateDevice}. */
  private static void validateDevice(Device device, String path, BiConsumer<String, String> error) {
    // validateDeviceName = ValidateDNS1123Label.
    label(device.getName(), path + ".name", error);
    Map<String, DeviceAttribute> attributes =
        device.getAttributes() == null ? Map.of() : device.getAttributes();
    Map<String, DeviceCapacity> capacity =
        device.getCapacity() == null ? Map.of() : device.getCapacity();
    if (attributes.size() + capacity.size() > MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE) {
      error.accept(
          path,
          "the total number of attributes and capacities must not exceed "
              + MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE);
    }
    attributes.forEach(
        (key, attribute) -> {
          String at = path + ".attributes[" + key + "]";
          qualifiedName(key, at, error);
          validateAttribute(attribute, at, error);
        });
    boolean multiple = Boolean.TRUE.equals(device.getAllowMultipleAllocations());
    capacity.forEach(
        (key, value) -> {
          String at = path + ".capacity[" + key + "]";
          qualifiedName(key, at, error);
          if (value.getRequestPolicy() == null) {
            return;
          }
          if (!multiple) {
            // validateSingleAllocatableDeviceCapacity
            error.accept(at + ".requestPolicy", "Forbidden: allowMultipleAllocations must be true");
          } else {
            validateRequestPolicy(
                value.getValue(), value.getRequestPolicy(), at + ".requestPolicy", error);
          }
        });
    List<DeviceCounterConsumption> consumptions =
        device.getConsumesCounters() == null ? List.of() : device.getConsumesCounters();
    if (consumptions.size() > MAX_COUNTER_CONSUMPTIONS_PER_DEVICE) {
      error.accept(
          path + ".consumesCounters",
          "Too many: "
              + consumptions.size()
              + ": must have at most "
              + MAX_COUNTER_CONSUMPTIONS_PER_DEVICE);
      return;
    }
    Set<String> sets = new HashSet<>();
    for (int i = 0; i < consumptions.size(); i++) {
      // validateDeviceCounterConsumption
      String at = path + ".consumesCounters[" + i + "]";
      DeviceCounterConsumption consumption = consumptions.get(i);
      if (!sets.add(String.valueOf(consumption.getCounterSet()))) {
        error.accept(at, "Duplicate value: " + consumption.getCounterSet());
      }
      label(consumption.getCounterSet(), at + ".counterSet", error);
      counters(consumption.getCounters(), MAX_COUNTERS_PER_CONSUMPTION, at + ".counters", error);
    }
  }

  /** {@code validateDeviceAttribute}: exactly one value; strings at most 64 characters. */
  private static void validateAttribute(
      DeviceAttribute attribute, String path, BiConsumer<String, String> error) {
    int values =
        (attribute.getBool() != null ? 1 : 0)
            + (attribute.getInt() != null ? 1 : 0)
            + (attribute.getString() != null ? 1 : 0)
            + (attribute.getVersion() != null ? 1 : 0);
    if (values != 1) {
      error.accept(path, "exactly one value must be specified");
    }
    if (attribute.getString() != null
        && attribute.getString().length() > MAX_ATTRIBUTE_VALUE_LENGTH) {
      error.accept(path + ".string", "Too long: must have at most " + MAX_ATTRIBUTE_VALUE_LENGTH);
    }
  }

  /**
   * {@code validateRequestPolicy}, {@code validateRequestPolicyRange} and {@code
   * validateRequestPolicyRangeStep} (integer path: {@code Quantity.Value()} rounds up).
   */
  private static void validateRequestPolicy(
      Quantity capacity,
      CapacityRequestPolicy policy,
      String path,
      BiConsumer<String, String> error) {
    if (policy.getValidValues() != null
        && !policy.getValidValues().isEmpty()
        && policy.getValidRange() != null) {
      error.accept(path, "exactly one policy can be specified");
      return;
    }
    CapacityRequestPolicyRange range = policy.getValidRange();
    if (range == null) {
      return;
    }
    if (policy.getDefault() == null) {
      error.accept(path + ".default", "Required value: required when validRange is defined");
      return;
    }
    if (range.getMin() == null) {
      error.accept(path + ".validRange.min", "Required value");
      return;
    }
    BigDecimal max = amount(capacity);
    BigDecimal low = amount(range.getMin());
    BigDecimal preset = amount(policy.getDefault());
    if (low.compareTo(max) > 0) {
      error.accept(path + ".validRange.min", "min is larger than capacity value");
    }
    if (preset.compareTo(low) < 0) {
      error.accept(path + ".validRange.default", "default is less than min");
    }
    if (range.getMax() != null) {
      BigDecimal high = amount(range.getMax());
      if (low.compareTo(high) > 0) {
        error.accept(path + ".validRange.max", "min is larger than max");
      }
      if (high.compareTo(max) > 0) {
        error.accept(path + ".validRange.max", "max is larger than capacity value");
      }
      if (preset.compareTo(high) > 0) {
        error.accept(path + ".validRange.default", "default is more than max");
      }
    }
    if (range.getStep() == null) {
      return;
    }
    BigDecimal step = amount(range.getStep());
    if (step.signum() <= 0) {
      error.accept(path + ".validRange.step", "must be greater than zero");
      return;
    }
    if (low.add(step).compareTo(max) > 0) {
      error.accept(path + ".validRange.step", "one step is larger than capacity value");
    }
    step(preset, low, step, range.getStep(), path, error);
    if (range.getMax() != null) {
      step(amount(range.getMax()), low, step, range.getStep(), path, error);
    }
  }

  private static void step(
      BigDecimal value,
      BigDecimal low,
      BigDecimal step,
      Quantity stepText,
      String path,
      BiConsumer<String, String> error) {
    BigDecimal integral = step.setScale(0, RoundingMode.CEILING);
    if (value
            .setScale(0, RoundingMode.CEILING)
            .subtract(low.setScale(0, RoundingMode.CEILING))
            .remainder(integral)
            .signum()
        != 0) {
      error.accept(
          path + ".validRange.step",
          "Invalid value: "
              + value.toPlainString()
              + ": value is not a multiple of a given step ("
              + stepText
              + ") from min");
    }
  }

  private static void counters(
      Map<String, Counter> counters, int most, String path, BiConsumer<String, String> error) {
    if (counters == null || counters.isEmpty()) {
      error.accept(path, "Required value");
      return;
    }
    if (counters.size() > most) {
      error.accept(path, "Too many: " + counters.size() + ": must have at most " + most);
    }
    // validateCounterName = ValidateDNS1123Label, for every key.
    counters.keySet().forEach(key -> label(key, path + "[" + key + "]", error));
  }

  /** {@code validateQualifiedName}: a C identifier, or a domain and a C identifier. */
  private static void qualifiedName(String name, String path, BiConsumer<String, String> error) {
    String[] parts = name.split("/", -1);
    if (parts.length > 2) {
      error.accept(path, "must not contain more than one slash");
      return;
    }
    if (parts.length == 2) {
      subdomain(parts[0], path, error);
    }
    String id = parts[parts.length - 1];
    if (id.length() > MAX_ID_LENGTH || !C_IDENTIFIER.matcher(id).matches()) {
      error.accept(
          path,
          "Invalid value: \"" + id + "\": must be a C identifier of at most " + MAX_ID_LENGTH);
    }
  }

  private static void label(String value, String path, BiConsumer<String, String> error) {
    if (!KubernetesNames.isLabel(value)) {
      error.accept(
          path,
          "Invalid value: \""
              + value
              + "\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters"
              + " or '-', and must start and end with an alphanumeric character");
    }
  }

  private static void subdomain(String value, String path, BiConsumer<String, String> error) {
    if (!KubernetesNames.isSubdomain(value)) {
      error.accept(
          path, "Invalid value: \"" + value + "\": a lowercase RFC 1123 subdomain is required");
    }
  }

  private static BigDecimal amount(Quantity quantity) {
    return Quantity.getAmountInBytes(quantity);
  }

  private static List<Device> devices(ResourceSliceSpec spec) {
    return spec.getDevices() == null ? List.of() : spec.getDevices();
  }

  private static boolean empty(List<?> list) {
    return list == null || list.isEmpty();
  }
}
