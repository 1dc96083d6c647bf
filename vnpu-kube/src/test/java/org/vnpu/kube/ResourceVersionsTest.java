package org.vnpu.kube;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResourceVersionsTest {

  @Test
  void versionsCompareAsIntegersNotAsText() {
    assertThat(ResourceVersions.isOlder("99", "100")).isTrue();
    assertThat(ResourceVersions.isOlder("100", "99")).isFalse();
    assertThat(ResourceVersions.isOlder("123", "124")).isTrue();
    assertThat(ResourceVersions.isOlder("124", "124")).as("equal").isFalse();
    assertThat(ResourceVersions.isOlder("18446744073709551615", "18446744073709551616"))
        .as("beyond a long")
        .isTrue();
  }

  @Test
  void aVersionThatIsNotADecimalIntegerComparesWithNothing() {
    for (String opaque : new String[] {"", "0", "012", "12a", "-5", "abc", null}) {
      assertThat(ResourceVersions.isOlder(opaque, "100")).as("%s against 100", opaque).isFalse();
      assertThat(ResourceVersions.isOlder("1", opaque)).as("1 against %s", opaque).isFalse();
    }
  }
}
