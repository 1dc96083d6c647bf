package org.vnpu.api.signing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class KeyRetirementTest {

  @Test
  void aKeyGoesOnceNoRunningAllocationIsSignedWithItButTheSigningKeyStays() {
    assertThat(KeyRetirement.retirable(List.of("old", "older", "now"), "now", List.of("old")))
        .containsExactly("older");
    assertThat(KeyRetirement.retirable(List.of("now"), "now", List.of())).isEmpty();
    assertThat(KeyRetirement.retirable(List.of("old"), "now", List.of("old", "gone")))
        .as("a key in use but no longer published is nothing to retire")
        .isEmpty();
  }
}
