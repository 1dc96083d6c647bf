package org.vnpu.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The extender's verbs over an interval, read from two scrapes of its histogram. */
class VerbLatenciesTest {

  private static String scrape(int fast, int slow, int slowest) {
    int total = fast + slow + slowest;
    return String.join(
        "\n",
        "# TYPE vnpu_scheduler_request_duration_seconds histogram",
        "vnpu_scheduler_request_duration_seconds_bucket{verb=\"/volcano/allocateFunc\",le=\"0.001\"} "
            + fast,
        "vnpu_scheduler_request_duration_seconds_bucket{verb=\"/volcano/allocateFunc\",le=\"0.01\"} "
            + (fast + slow),
        "vnpu_scheduler_request_duration_seconds_bucket{verb=\"/volcano/allocateFunc\",le=\"+Inf\"} "
            + total,
        "vnpu_scheduler_request_duration_seconds_count{verb=\"/volcano/allocateFunc\"} " + total,
        "vnpu_scheduler_request_duration_seconds_bucket{verb=\"/kube/filter\",le=\"0.001\"} 7",
        "vnpu_scheduler_request_duration_seconds_bucket{verb=\"/kube/filter\",le=\"+Inf\"} 7",
        "");
  }

  @Test
  void onlyWhatWasObservedBetweenTheTwoScrapesCounts() {
    VerbLatencies before = VerbLatencies.read(scrape(100, 0, 0));
    VerbLatencies row = VerbLatencies.read(scrape(150, 50, 0)).since(before);

    // filter had no call in between; allocateFunc had 100: 50 under 1 ms, 50 between 1 and 10 ms
    assertThat(row.calls())
        .containsExactlyEntriesOf(java.util.Map.of("/volcano/allocateFunc", 100L));
    assertThat(row.quantile("/volcano/allocateFunc", 0.5)).isCloseTo(0.001, within(1e-9));
    assertThat(row.quantile("/volcano/allocateFunc", 0.99)).isCloseTo(0.00982, within(1e-9));
    assertThat(row.quantile("/kube/filter", 0.5)).isNaN();
  }

  @Test
  void aRankBeyondTheLastBoundIsThatBound() {
    VerbLatencies row = VerbLatencies.read(scrape(0, 1, 99)).since(VerbLatencies.read(""));

    assertThat(row.quantile("/volcano/allocateFunc", 0.99)).isEqualTo(0.01);
  }
}
