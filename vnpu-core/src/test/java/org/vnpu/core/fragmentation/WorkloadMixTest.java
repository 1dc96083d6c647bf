package org.vnpu.core.fragmentation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.vnpu.core.chip.ChipTypes;

class WorkloadMixTest {

  private final WorkloadShape small = new WorkloadShape(1, 5, 4096L, ChipTypes.ANY, 0);
  private final WorkloadShape large = new WorkloadShape(2, 50, 16384L, ChipTypes.ANY, 0);

  @Test
  void aMixIsNearAnotherWithTheSameShapesWhoseProbabilitiesMoveLessThanTheDrift() {
    WorkloadMix mix = mix(0.50, 0.50);

    assertThat(mix.near(mix(0.505, 0.495), 0.01)).isTrue();
    assertThat(mix.near(mix(0.52, 0.48), 0.01)).isFalse();
    assertThat(mix.near(new WorkloadMix(List.of(new WorkloadMix.Weighted(small, 1))), 0.01))
        .as("a shape fewer")
        .isFalse();
    assertThat(
            mix.near(
                new WorkloadMix(
                    List.of(
                        new WorkloadMix.Weighted(small, 0.5),
                        new WorkloadMix.Weighted(
                            new WorkloadShape(2, 50, 16384L, ChipTypes.of("310P3"), 0), 0.5))),
                0.01))
        .as("another shape in its place")
        .isFalse();
    assertThat(WorkloadMix.EMPTY.near(WorkloadMix.EMPTY, 0.01)).isTrue();
  }

  private WorkloadMix mix(double smallShare, double largeShare) {
    return new WorkloadMix(
        List.of(
            new WorkloadMix.Weighted(small, smallShare),
            new WorkloadMix.Weighted(large, largeShare)));
  }
}
