package org.vnpu.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.vnpu.sandbox.Scenario;

/**
 * A pod decided alone agrees only on the same node, chips and slice; a pod of a batch agrees when
 * both runs placed it (or left it pending), wherever the order put it.
 */
class AgreementTest {

  private static Scenario.Report report(List<Scenario.Row> rows, List<Scenario.Unfit> unfit) {
    return new Scenario.Report(rows, unfit, List.of(), List.of());
  }

  @Test
  void alonePodsAgreeOnTheChipAndBatchPodsOnBeingPlaced() {
    Scenario.Report embedded =
        report(
            List.of(
                new Scenario.Row("batch", "mixed", 0, "910B3", "30 %"),
                new Scenario.Row("urgent", "mixed", 2, "310P3", "50 %"),
                new Scenario.Row("type-pin", "mixed", 2, "310P3", "50 %"),
                new Scenario.Row("infer-01", "a2-train", 0, "910B3", "10 %")),
            List.of(new Scenario.Unfit("duo-slice", "no template")));
    Scenario.Report real =
        report(
            List.of(
                new Scenario.Row("batch", "mixed", 0, "910B3", "30 %"),
                new Scenario.Row("urgent", "mixed", 3, "310P3", "50 %"),
                new Scenario.Row("type-pin", "mixed", 3, "310P3", "50 %"),
                new Scenario.Row("infer-01", "a2-train", 7, "910B3", "10 %")),
            List.of(new Scenario.Unfit("duo-slice", "0/4 nodes are available: no template")));

    List<Agreement.Row> rows = Agreement.of(embedded, real);

    assertThat(rows)
        .extracting(Agreement.Row::pod, Agreement.Row::batch, Agreement.Row::agrees)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("batch", false, true),
            org.assertj.core.groups.Tuple.tuple("urgent", false, false),
            // The examples are submitted together: where a pod of a batch lands may differ.
            org.assertj.core.groups.Tuple.tuple("type-pin", true, true),
            org.assertj.core.groups.Tuple.tuple("infer-01", true, true),
            org.assertj.core.groups.Tuple.tuple("duo-slice", true, true));
    assertThat(Agreement.markdown(rows))
        .contains("| urgent | mixed chip 2 50 % | mixed chip 3 50 % | **no** |")
        .contains("1 of 2 pods decided alone agree on node and chip; 3 of 3 pods of batches");
  }

  @Test
  void aPodOneRunPlacedAndTheOtherLeftPendingDisagreesEvenInABatch() {
    Scenario.Report embedded =
        report(List.of(new Scenario.Row("infer-02", "mixed", 1, "910B3", "10 %")), List.of());
    Scenario.Report real = report(List.of(), List.of(new Scenario.Unfit("infer-02", "full")));

    assertThat(Agreement.of(embedded, real))
        .singleElement()
        .extracting(Agreement.Row::agrees)
        .isEqualTo(false);
  }
}
