package org.vnpu.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeviceSelectorsTest {

  private static final String DRIVER = "vnpu.huawei.com";

  private final DeviceSelectors selectors = new DeviceSelectors();

  /** A quarter of a 310P3 as the driver publishes it. */
  private static Device quarter() {
    DeviceAttribute type = new DeviceAttribute();
    type.setString("310P3");
    DeviceAttribute whole = new DeviceAttribute();
    whole.setBool(false);
    DeviceAttribute index = new DeviceAttribute();
    index.setInt(3L);
    DeviceAttribute foreign = new DeviceAttribute();
    foreign.setString("x");
    Device device = new Device();
    device.setName("npu-3-1of4");
    device.setAttributes(
        Map.of("type", type, "wholeCard", whole, "index", index, "example.com/tag", foreign));
    device.setCapacity(
        Map.of(
            "aiCore", new DeviceCapacity(null, new Quantity("25")),
            "memory", new DeviceCapacity(null, new Quantity("11070Mi"))));
    return device;
  }

  @Test
  void evaluatesTheExamplesSelectors() {
    assertThat(selectors.matches("device.driver == \"vnpu.huawei.com\"", DRIVER, quarter()))
        .isTrue();
    assertThat(
            selectors.matches(
                "!device.attributes[\"vnpu.huawei.com\"].wholeCard &&"
                    + " device.capacity[\"vnpu.huawei.com\"].aiCore == quantity(\"25\")",
                DRIVER,
                quarter()))
        .isTrue();
    assertThat(
            selectors.matches(
                "device.capacity[\"vnpu.huawei.com\"].aiCore == quantity(\"50\")",
                DRIVER,
                quarter()))
        .isFalse();
    assertThat(
            selectors.matches(
                "device.attributes[\"vnpu.huawei.com\"].type == \"310P3\"", DRIVER, quarter()))
        .isTrue();
  }

  @Test
  void quantitiesCompareByValueAcrossUnits() {
    assertThat(
            selectors.matches(
                "device.capacity[\"vnpu.huawei.com\"].memory.isGreaterThan(quantity(\"10Gi\"))"
                    + " && device.capacity[\"vnpu.huawei.com\"].memory.compareTo(quantity(\"11070Mi\")) == 0"
                    + " && device.capacity[\"vnpu.huawei.com\"].aiCore.asInteger() == 25",
                DRIVER,
                quarter()))
        .isTrue();
  }

  @Test
  void namesWithADomainGoUnderThatDomainAndBareOnesUnderTheDriver() {
    assertThat(
            selectors.matches(
                "device.attributes[\"example.com\"].tag == \"x\""
                    + " && device.attributes[\"vnpu.huawei.com\"].index == 3",
                DRIVER,
                quarter()))
        .isTrue();
    assertThat(
            selectors.matches("has(device.attributes[\"vnpu.huawei.com\"].tag)", DRIVER, quarter()))
        .isFalse();
  }

  @Test
  void aMissingAttributeIsAnErrorNamingTheDeviceAndTheSelector() {
    assertThatThrownBy(
            () ->
                selectors.matches(
                    "device.attributes[\"vnpu.huawei.com\"].model == \"x\"", DRIVER, quarter()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("npu-3-1of4")
        .hasMessageContaining("model");
  }

  @Test
  void anExpressionThatIsNotABoolFailsToCompileOrToEvaluate() {
    assertThatThrownBy(() -> selectors.matches("1 + 2", DRIVER, quarter()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not compile");
    // dyn compiles, as upstream's "bool or the unknown type"; the string it gives is refused
    assertThatThrownBy(() -> selectors.matches("device.driver", DRIVER, quarter()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a bool");
  }

  @Test
  void theCacheOfCompiledExpressionsIsBounded() {
    for (int i = 0; i < DeviceSelectors.MAX_PROGRAMS + 10; i++) {
      assertThat(
              selectors.matches(
                  "device.attributes[\"vnpu.huawei.com\"].index == " + i, DRIVER, quarter()))
          .isEqualTo(i == 3);
    }
    assertThat(selectors.cached()).isLessThanOrEqualTo(DeviceSelectors.MAX_PROGRAMS);
  }
}
