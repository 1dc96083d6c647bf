package org.vnpu.core.fragmentation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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

  @Test
  void theTypicalMixOfCountsIsThatOfTheShapesCounted() {
    WorkloadShape rare = new WorkloadShape(1, 25, 8192L, ChipTypes.ANY, 0);
    List<WorkloadShape> observed = new ArrayList<>();
    observed.addAll(Collections.nCopies(60, small));
    observed.addAll(Collections.nCopies(35, large));
    observed.addAll(Collections.nCopies(5, rare));

    WorkloadMix typical = WorkloadMix.typical(Map.of(small, 60, large, 35, rare, 5), 0.9, 1);

    assertThat(typical).isEqualTo(WorkloadMix.typical(observed, 0.9, 1));
    assertThat(typical.shapes())
        .as("the rare shape is beyond 90 %% coverage")
        .containsExactly(
            new WorkloadMix.Weighted(small, 60 / 95.0), new WorkloadMix.Weighted(large, 35 / 95.0));
  }

  private WorkloadMix mix(double smallShare, double largeShare) {
    return new WorkloadMix(
        List.of(
            new WorkloadMix.Weighted(small, smallShare),
            new WorkloadMix.Weighted(large, largeShare)));
  }
}
