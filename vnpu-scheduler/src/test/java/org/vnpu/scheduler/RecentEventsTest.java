package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class RecentEventsTest {

  private final RecentEvents recent = new RecentEvents();
  private final Instant start = Instant.parse("2026-12-07T08:00:00Z");

  @Test
  void theSameMessageForTheSamePodIsRecordedOncePerQuietPeriod() {
    assertThat(recent.record("uid-1", "VnpuAllocated", "on node a", start)).isTrue();
    assertThat(recent.record("uid-1", "VnpuAllocated", "on node a", start.plusSeconds(59)))
        .isFalse();
    assertThat(recent.record("uid-1", "VnpuAllocated", "on node a", start.plus(RecentEvents.QUIET)))
        .isTrue();
  }

  @Test
  void anotherPodReasonOrMessageIsAnotherEvent() {
    recent.record("uid-1", "VnpuAllocated", "on node a", start);

    assertThat(recent.record("uid-2", "VnpuAllocated", "on node a", start)).isTrue();
    assertThat(recent.record("uid-1", "VnpuUnschedulable", "on node a", start)).isTrue();
    assertThat(recent.record("uid-1", "VnpuAllocated", "on node b", start)).isTrue();
  }

  @Test
  void aFloodOfDistinctMessagesPushesOutTheOldestNotTheNewest() {
    recent.record("uid-0", "VnpuUnschedulable", "message 0", start);
    for (int i = 1; i <= RecentEvents.REMEMBERED; i++) {
      recent.record("uid-" + i, "VnpuUnschedulable", "message " + i, start);
    }

    assertThat(recent.record("uid-0", "VnpuUnschedulable", "message 0", start))
        .as("pushed out by %d newer events", RecentEvents.REMEMBERED)
        .isTrue();
    assertThat(
            recent.record(
                "uid-" + RecentEvents.REMEMBERED,
                "VnpuUnschedulable",
                "message " + RecentEvents.REMEMBERED,
                start))
        .isFalse();
  }

  @Test
  void anEventRecordedAgainIsTheNewestAndOutlivesThoseRecordedBetween() {
    recent.record("uid-0", "VnpuUnschedulable", "again", start);
    recent.record("uid-1", "VnpuUnschedulable", "once", start);
    Instant later = start.plus(RecentEvents.QUIET);
    recent.record("uid-0", "VnpuUnschedulable", "again", later);
    for (int i = 2; i < RecentEvents.REMEMBERED; i++) {
      recent.record("uid-" + i, "VnpuUnschedulable", "filler", later);
    }
    recent.record("uid-x", "VnpuUnschedulable", "one more", later);

    assertThat(recent.record("uid-0", "VnpuUnschedulable", "again", later)).isFalse();
    assertThat(recent.record("uid-1", "VnpuUnschedulable", "once", start)).isTrue();
  }
}
