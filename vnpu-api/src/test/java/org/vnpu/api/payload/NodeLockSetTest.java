package org.vnpu.api.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeLockSetTest {

  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  private static NodeLock lock(String uid, int secondsAfter, String shape, Integer... counts) {
    Instant at = T0.plusSeconds(secondsAfter);
    return new NodeLock(
        uid,
        "team-a",
        "pod-" + uid,
        at,
        at.plusSeconds(300),
        "n-" + uid,
        shape,
        List.of(counts),
        0);
  }

  @Test
  void podsWhoseCountsDifferShareTheNode() {
    NodeLockSet set = NodeLockSet.EMPTY.with(lock("a", 0, "s1", 1), T0);

    assertThat(set.blocker("b", List.of(2, 4), T0)).isEmpty();
    assertThat(set.blocker("c", List.of(1, 2), T0)).map(NodeLock::podUid).contains("a");
    assertThat(set.blocker("a", List.of(1), T0)).isEmpty();
  }

  @Test
  void expiredEntriesNeitherBlockNorSurviveAWrite() {
    NodeLockSet set = NodeLockSet.EMPTY.with(lock("a", 0, "s1", 1), T0);
    Instant later = T0.plusSeconds(301);

    assertThat(set.blocker("c", List.of(1), later)).isEmpty();
    assertThat(set.with(lock("c", 301, "s1", 1), later).holders())
        .extracting(NodeLock::podUid)
        .containsExactly("c");
  }

  @Test
  void allocateServesTheStartedPodFirstThenTheEarliest() {
    NodeLock first = lock("a", 0, "s1", 1);
    NodeLock second = lock("b", 5, "s1", 1);
    NodeLockSet set = new NodeLockSet(List.of(second, first));

    assertThat(set.serving(1, T0.plusSeconds(6))).contains(first);
    NodeLockSet started = set.without("b").with(second.afterHandout(), T0.plusSeconds(6));
    assertThat(started.serving(1, T0.plusSeconds(6))).map(NodeLock::podUid).contains("b");
    assertThat(set.serving(2, T0)).isEmpty();
  }

  @Test
  void refusesTwoEntriesForOnePod() {
    assertThatThrownBy(() -> new NodeLockSet(List.of(lock("a", 0, "s", 1), lock("a", 1, "s", 2))))
        .hasMessage("holders name pod UID a more than once");
  }

  @Test
  void refusesCountsOutOfOrder() {
    assertThatThrownBy(() -> lock("a", 0, "s", 2, 1))
        .hasMessage("counts must be distinct and ascending, found [2, 1]");
  }
}
