package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.core.chip.ChipCatalog;

/** The plan a burst is held against: pods one at a time, by the scheduler's own engine. */
class SequentialPlanTest {

  private static final List<Node> NODES =
      List.of(ClusterFixture.node("one", 2, "64"), ClusterFixture.node("two", 2, "64"));

  private static List<Pod> shares(int count, PlacementPolicy policy) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      pods.add(
          ClusterFixture.sharePod("p" + i, "1", 10)
              .editMetadata()
              .addToAnnotations(AnnotationKeys.NODE_SCHEDULER_POLICY, policy.wireName())
              .addToAnnotations(AnnotationKeys.DEVICE_SCHEDULER_POLICY, policy.wireName())
              .endMetadata()
              .build());
    }
    return pods;
  }

  @Test
  void binpackFillsEachChipBeforeTheNextAndSpreadDoesNot() throws Exception {
    // ten shares of 10 % fill a chip
    assertThat(
            SequentialPlan.place(NODES, shares(25, PlacementPolicy.BINPACK), ChipCatalog.builtIn()))
        .isEqualTo(new SequentialPlan.Result(25, 3));
    assertThat(
            SequentialPlan.place(NODES, shares(25, PlacementPolicy.SPREAD), ChipCatalog.builtIn()))
        .isEqualTo(new SequentialPlan.Result(25, 4));
  }

  @Test
  void aPodThatFitsNowhereIsLeftOut() throws Exception {
    assertThat(
            SequentialPlan.place(NODES, shares(41, PlacementPolicy.BINPACK), ChipCatalog.builtIn()))
        .isEqualTo(new SequentialPlan.Result(40, 4));
  }
}
