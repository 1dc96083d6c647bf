package org.vnpu.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.kube.DeviceSelectors;

/**
 * The examples in deploy/examples/dra parse as resource.k8s.io/v1 objects, ask for this driver's
 * devices, and name only attributes and capacities the driver publishes.
 */
class DraExamplesTest {

  private static final Path EXAMPLES = Path.of("../deploy/examples/dra");
  private static final Pattern ATTRIBUTE =
      Pattern.compile("device\\.(attributes|capacity)\\[\"vnpu\\.huawei\\.com\"\\]\\.(\\w+)");
  private final KubernetesSerialization serialization = new KubernetesSerialization();

  @Test
  void everyExampleParsesAndNamesOnlyWhatTheDriverPublishes() throws IOException {
    Set<String> attributes = new HashSet<>();
    Set<String> capacities = new HashSet<>();
    List<RegisteredChip> chips =
        List.of(new RegisteredChip(0, "DIE", "910B3", 65536, 20, 7, true, 0, "0"));
    for (Sharing sharing : Sharing.values()) {
      for (ResourceSlice slice :
          ResourceSlices.of(
              "vnpu.huawei.com", "n", 1, NodeDevices.of(chips, sharing, 2, DeviceOrder.BINPACK))) {
        if (slice.getSpec().getDevices() != null) {
          slice.getSpec().getDevices().forEach(d -> attributes.addAll(d.getAttributes().keySet()));
          slice.getSpec().getDevices().forEach(d -> capacities.addAll(d.getCapacity().keySet()));
        }
      }
    }

    List<HasMetadata> objects = examples();
    assertThat(objects).filteredOn(DeviceClass.class::isInstance).hasSize(1);
    assertThat(objects).filteredOn(ResourceClaimTemplate.class::isInstance).hasSize(4);
    assertThat(objects).filteredOn(Pod.class::isInstance).hasSize(4);

    List<String> expressions = new ArrayList<>();
    for (HasMetadata object : objects) {
      if (object instanceof DeviceClass deviceClass) {
        deviceClass
            .getSpec()
            .getSelectors()
            .forEach(s -> expressions.add(s.getCel().getExpression()));
      }
      if (object instanceof ResourceClaimTemplate template) {
        ExactDeviceRequest request =
            template.getSpec().getSpec().getDevices().getRequests().get(0).getExactly();
        assertThat(request.getDeviceClassName()).isEqualTo("vnpu.huawei.com");
        for (DeviceSelector selector : request.getSelectors()) {
          expressions.add(selector.getCel().getExpression());
        }
        if (request.getCapacity() != null) {
          assertThat(capacities).containsAll(request.getCapacity().getRequests().keySet());
        }
      }
    }
    int checked = 0;
    for (String expression : expressions) {
      Matcher matcher = ATTRIBUTE.matcher(expression);
      while (matcher.find()) {
        assertThat(matcher.group(1).equals("attributes") ? attributes : capacities)
            .as(expression)
            .contains(matcher.group(2));
        checked++;
      }
    }
    assertThat(checked).as("attribute references in the examples' CEL").isGreaterThanOrEqualTo(4);
  }

  /**
   * Each template's selectors, evaluated as kube-scheduler's allocator evaluates them, match a
   * device the driver publishes in some sharing mode on 910B3 or 310P3 chips, without a CEL error;
   * the DeviceClass's selector matches every device.
   */
  @Test
  void everyTemplatesSelectorsMatchAPublishedDevice() throws IOException {
    DeviceSelectors selectors = new DeviceSelectors();
    List<Device> devices = new ArrayList<>();
    for (String type : List.of("910B3", "310P3")) {
      List<RegisteredChip> chips =
          List.of(new RegisteredChip(0, "DIE", type, 65536, 20, 7, true, 0, "0"));
      for (Sharing sharing : Sharing.values()) {
        for (int slices : NodeDevices.SLICES) {
          for (ResourceSlice slice :
              ResourceSlices.of(
                  "vnpu.huawei.com",
                  "n",
                  1,
                  NodeDevices.of(chips, sharing, slices, DeviceOrder.BINPACK))) {
            if (slice.getSpec().getDevices() != null) {
              devices.addAll(slice.getSpec().getDevices());
            }
          }
        }
      }
    }
    List<HasMetadata> objects = examples();
    for (HasMetadata object : objects) {
      if (object instanceof DeviceClass deviceClass) {
        for (DeviceSelector selector : deviceClass.getSpec().getSelectors()) {
          assertThat(devices)
              .allMatch(
                  d -> selectors.matches(selector.getCel().getExpression(), "vnpu.huawei.com", d));
        }
      }
      if (object instanceof ResourceClaimTemplate template) {
        List<DeviceSelector> wanted =
            template
                .getSpec()
                .getSpec()
                .getDevices()
                .getRequests()
                .get(0)
                .getExactly()
                .getSelectors();
        assertThat(devices)
            .as(template.getMetadata().getName())
            .anyMatch(
                d ->
                    wanted.stream()
                        .allMatch(
                            selector ->
                                selectors.matches(
                                    selector.getCel().getExpression(), "vnpu.huawei.com", d)));
      }
    }
  }

  private List<HasMetadata> examples() throws IOException {
    List<HasMetadata> objects = new ArrayList<>();
    try (Stream<Path> files = Files.list(EXAMPLES)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        for (String document : Files.readString(file).split("(?m)^---\\s*$")) {
          objects.add(serialization.unmarshal(document, HasMetadata.class));
        }
      }
    }
    return objects;
  }
}
