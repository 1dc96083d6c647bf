package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RequestBudgetTest {

  @Test
  void requestsShareTheBudgetByTheirParsedSizeAndGiveItBack() throws Exception {
    RequestBudget budget = new RequestBudget(60L << 20, Duration.ofMillis(100));

    RequestBudget.Share first = budget.take(1 << 20); // 30 MiB once parsed
    try (RequestBudget.Share second = budget.take(1 << 20)) {
      assertThat(first).isNotNull();
      assertThat(second).isNotNull();
      assertThat(budget.take(1)).as("the budget is spent").isNull();
      assertThat(budget.describe()).isEqualTo("60 of 60 MiB of the request budget in use");
    }
    first.close();
    try (RequestBudget.Share huge = budget.take(1L << 30)) {
      assertThat(huge).as("a request larger than the budget gets all of it").isNotNull();
    }
  }
}
