package org.vnpu.core.fragmentation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.inventory.ChipSupply;

/** Which chip types the fragmentation measure counts as scarce, and says a pod left alone. */
class ScarcityTest {

  private static final ChipSupply THREE_TO_ONE = new ChipSupply(Map.of("910B3", 12L, "310P3", 4L));

  private static WorkloadMix mix(double onlyDuo) {
    return new WorkloadMix(
        List.of(
            new WorkloadMix.Weighted(
                new WorkloadShape(1, 50, 8192L, ChipTypes.ANY, 0), 1 - onlyDuo),
            new WorkloadMix.Weighted(
                new WorkloadShape(1, 50, 8192L, ChipTypes.of("310P3"), 0), onlyDuo)));
  }

  @Test
  void aMixWhoseShapesAcceptEveryTypeFindsNoneScarce() {
    FragmentationMeter meter = new FragmentationMeter(mix(0), THREE_TO_ONE);

    assertThat(meter.scarceTypes().leftBy(ChipTypes.ANY, Set.of("910B3"))).isEmpty();
  }

  @Test
  void aTypeThatPodsAcceptingOnlyItSeekIsScarceForPodsThatAcceptOthers() {
    FragmentationMeter meter = new FragmentationMeter(mix(0.2), THREE_TO_ONE);

    assertThat(meter.scarceTypes().leftBy(ChipTypes.ANY, Set.of("910B3"))).containsExactly("310P3");
    assertThat(meter.scarceTypes().leftBy(ChipTypes.ANY, Set.of("310P3"))).isEmpty();
    assertThat(meter.scarceTypes().leftBy(ChipTypes.of("910B3"), Set.of("910B3"))).isEmpty();
  }

  @Test
  void anUnknownSupplyFindsNoneScarce() {
    FragmentationMeter meter = new FragmentationMeter(mix(0.2));

    assertThat(meter.scarceTypes().leftBy(ChipTypes.ANY, Set.of("910B3"))).isEmpty();
  }
}
