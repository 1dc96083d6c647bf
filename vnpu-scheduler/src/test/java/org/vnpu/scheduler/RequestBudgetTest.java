package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestBudgetTest {

  @Test
  void bodiesAreChargedByTheirParsedSizeAsTheyArriveAndGiveItBack() {
    RequestBudget budget = new RequestBudget(120L << 20, 1);

    RequestBudget.Charge first = budget.open("10.0.0.1");
    assertThat(first.add(1)).as("one byte arrived: 30 bytes charged").isTrue();
    assertThat(first.add(4 << 20)).as("120 MiB more do not fit beside it").isFalse();
    assertThat(budget.describe()).startsWith("0 of 120 MiB");
    try (RequestBudget.Charge second = budget.open("10.0.0.1")) {
      assertThat(second.add((4 << 20) - 1)).isTrue();
      assertThat(budget.open("10.0.0.2").add(1)).as("the budget is spent").isFalse();
    }
    first.close();
    first.close();
    assertThat(budget.describe()).startsWith("0 of 120 MiB");
    assertThat(budget.open("10.0.0.2").add(4 << 20)).isTrue();
  }

  @Test
  void oneClientHoldsAtMostItsPartAndTheOthersKeepTheirs() {
    RequestBudget budget = new RequestBudget(120L << 20, 4); // 30 MiB per client

    RequestBudget.Charge greedy = budget.open("10.0.0.1");
    assertThat(greedy.add(1 << 20)).isTrue();
    assertThat(budget.open("10.0.0.1").add(1)).as("its part is spent").isFalse();
    for (int client = 2; client <= 4; client++) {
      assertThat(budget.open("10.0.0." + client).add(1 << 20)).isTrue();
    }
    assertThat(budget.open("10.0.0.5").add(1)).as("the whole budget is spent").isFalse();
    greedy.close();
    assertThat(budget.open("10.0.0.5").add(1 << 20)).isTrue();
  }
}
