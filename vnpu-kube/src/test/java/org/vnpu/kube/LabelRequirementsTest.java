package org.vnpu.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LabelRequirementsTest {

  @Test
  void eachOperatorAsLabelsRequirementMatchesDecides() {
    assertThat(LabelRequirements.holds("In", List.of("a", "b"), "b")).isTrue();
    assertThat(LabelRequirements.holds("In", List.of("a"), null)).isFalse();
    assertThat(LabelRequirements.holds("NotIn", List.of("a"), null)).isTrue();
    assertThat(LabelRequirements.holds("NotIn", List.of("a"), "a")).isFalse();
    assertThat(LabelRequirements.holds("Exists", null, "")).isTrue();
    assertThat(LabelRequirements.holds("Exists", null, null)).isFalse();
    assertThat(LabelRequirements.holds("DoesNotExist", null, null)).isTrue();
    assertThat(LabelRequirements.holds("Gt", List.of("3"), "4")).isTrue();
    assertThat(LabelRequirements.holds("Lt", List.of("3"), "4")).isFalse();
  }

  @Test
  void whatCannotBeReadMatchesNothing() {
    assertThat(LabelRequirements.holds("Gt", List.of("3"), "four")).isFalse();
    assertThat(LabelRequirements.holds("Gt", List.of("3", "5"), "4")).isFalse();
    assertThat(LabelRequirements.holds("Gt", List.of("3"), null)).isFalse();
    assertThat(LabelRequirements.holds("Near", List.of("a"), "a")).isFalse();
    assertThat(LabelRequirements.holds(null, List.of("a"), "a")).isFalse();
  }
}
