package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.BindPhase;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.PodRef;

class UnseenLocksTest {

  private final Instant now = Instant.parse("2026-12-06T03:00:00Z");
  private final UnseenLocks unseen = new UnseenLocks();
  private final NodeLock mine = lock("mine", "nonce-1");

  @Test
  void aNodeAsItWasBeforeTheWriteKeepsTheEntry() {
    unseen.taken("a", mine);

    NodeLockSet other = new NodeLockSet(List.of(lock("other", "nonce-2")), List.of());
    assertThat(unseen.over("a", other, now).holders())
        .containsExactlyInAnyOrder(lock("other", "nonce-2"), mine);
    assertThat(unseen.over("b", NodeLockSet.EMPTY, now).holders()).isEmpty();
  }

  @Test
  void anEntryTheNodeShowsIsNoLongerKept() {
    unseen.taken("a", mine);
    unseen.over("a", new NodeLockSet(List.of(mine), List.of()), now);

    // The device plugin served it: later node events do not show it, and rightly so.
    assertThat(unseen.over("a", NodeLockSet.EMPTY, now).holders()).isEmpty();
  }

  @Test
  void anEntryOfAnEarlierReservationOfThePodIsNotTheOneOnItsWay() {
    unseen.taken("a", mine);

    NodeLockSet earlier = new NodeLockSet(List.of(lock("mine", "nonce-0")), List.of());
    assertThat(unseen.over("a", earlier, now).holders()).containsExactly(mine);
  }

  @Test
  void anEntryTheNodeShowsHandedOutIsNoLongerKept() {
    unseen.taken("a", mine);
    HandoutRecord record =
        new HandoutRecord(
            "nonce-1",
            "shape",
            new PodRef("mine", "default", "mine"),
            "allocation",
            "main",
            List.of("d-1"),
            now,
            null);

    unseen.over("a", new NodeLockSet(List.of(), List.of(record)), now);

    assertThat(unseen.over("a", NodeLockSet.EMPTY, now).holders()).isEmpty();
  }

  @Test
  void theEntryOfAPodHandedOutEverythingIsNoLongerKept() {
    unseen.taken("a", mine);
    unseen.bound("mine", Map.of(AnnotationKeys.BIND_PHASE, BindPhase.ALLOCATING.wireName()));
    assertThat(unseen.over("a", NodeLockSet.EMPTY, now).holders()).containsExactly(mine);

    unseen.bound("mine", Map.of(AnnotationKeys.BIND_PHASE, BindPhase.SUCCESS.wireName()));
    assertThat(unseen.over("a", NodeLockSet.EMPTY, now).holders()).isEmpty();
  }

  @Test
  void anEndedOrExpiredEntryIsNoLongerKept() {
    unseen.taken("a", mine);
    unseen.ended("mine");
    assertThat(unseen.over("a", NodeLockSet.EMPTY, now).holders()).isEmpty();

    unseen.taken("a", mine);
    assertThat(unseen.over("a", NodeLockSet.EMPTY, now.plusSeconds(61)).holders()).isEmpty();
    assertThat(unseen.over("a", NodeLockSet.EMPTY, now).holders()).isEmpty();
  }

  private NodeLock lock(String uid, String nonce) {
    return new NodeLock(
        uid, "default", uid, now, now.plusSeconds(60), nonce, "shape", List.of(1), 0);
  }
}
