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

    assertThat(set.blocker("b", "s2", List.of(2, 4), T0)).isEmpty();
    assertThat(set.blocker("c", "s2", List.of(1, 2), T0)).map(NodeLock::podUid).contains("a");
    assertThat(set.blocker("a", "s2", List.of(1), T0)).isEmpty();
  }

  @Test
  void podsOfTheSameShapeShareTheNodeWhateverTheirCounts() {
    NodeLockSet set = NodeLockSet.EMPTY.with(lock("a", 0, "s1", 1), T0);

    assertThat(set.blocker("b", "s1", List.of(1), T0)).isEmpty();
    assertThat(set.blocker("c", "s2", List.of(1), T0)).isPresent();
  }

  @Test
  void aLastHandoutIsRecordedOnlyWhenAnotherPodOfItsShapeIsReservedOrOutstanding() {
    NodeLockSet set = aAndBOfOneShapeAndC();

    NodeLockSet afterA = set.afterLastHandout("a", record("n-a", "s1"), T0);
    assertThat(afterA.holders()).extracting(NodeLock::podUid).containsExactly("b", "c");
    assertThat(afterA.handouts()).extracting(HandoutRecord::nonce).containsExactly("n-a");
    // b is now the only s1 pod reserved, but a's hand-out is outstanding: b's may be a's pod's.
    NodeLockSet afterB = afterA.afterLastHandout("b", record("n-b", "s1"), T0);
    assertThat(afterB.handouts()).extracting(HandoutRecord::nonce).containsExactly("n-a", "n-b");
    // c is the only s2 pod: its hand-out is exact.
    assertThat(afterB.afterLastHandout("c", record("n-c", "s2"), T0).handouts()).hasSize(2);

    PodRef holder = new PodRef("b", "team-a", "pod-b");
    NodeLockSet held = afterB.heldBy("n-a", holder);
    assertThat(held.handout("n-a")).map(HandoutRecord::heldBy).contains(holder);
    assertThat(held.settled("n-a").handouts())
        .extracting(HandoutRecord::nonce)
        .containsExactly("n-b");
  }

  @Test
  void anEntryMayStandForAnotherPodWhileAHandoutOfItsShapeHasNoKnownHolder() {
    NodeLockSet set = aAndBOfOneShapeAndC();
    assertThat(set.mayStandForAnother("b")).isFalse();

    // The kubelet admitted b's pod on a's entry (the earliest): b's entry is now a's pod's.
    NodeLockSet afterA = set.afterLastHandout("a", record("n-a", "s1"), T0);
    assertThat(afterA.mayStandForAnother("b")).isTrue();
    assertThat(afterA.mayStandForAnother("c")).isFalse();
    assertThat(afterA.mayStandForAnother("a")).isFalse();
    // Once the holder is known, its own entry has gone: b's entry stands for b's pod.
    assertThat(afterA.heldBy("n-a", new PodRef("x", "team-a", "pod-x")).mayStandForAnother("b"))
        .isFalse();
  }

  /** Pods a and b of shape s1 with one vNPU, and c of shape s2 with two, reserved in that order. */
  private static NodeLockSet aAndBOfOneShapeAndC() {
    return NodeLockSet.EMPTY
        .with(lock("a", 0, "s1", 1), T0)
        .with(lock("b", 1, "s1", 1), T0)
        .with(lock("c", 2, "s2", 2), T0);
  }

  private static HandoutRecord record(String nonce, String shape) {
    return new HandoutRecord(
        nonce,
        shape,
        new PodRef("u-" + nonce, "team-a", "pod-" + nonce),
        "{}",
        "main",
        List.of("d-0"),
        T0,
        null);
  }

  @Test
  void expiredEntriesNeitherBlockNorSurviveAWrite() {
    NodeLockSet set = NodeLockSet.EMPTY.with(lock("a", 0, "s1", 1), T0);
    Instant later = T0.plusSeconds(301);

    assertThat(set.blocker("c", "s2", List.of(1), later)).isEmpty();
    assertThat(set.with(lock("c", 301, "s1", 1), later).holders())
        .extracting(NodeLock::podUid)
        .containsExactly("c");
  }

  @Test
  void allocateServesTheStartedPodFirstThenTheEarliest() {
    NodeLock first = lock("a", 0, "s1", 1);
    NodeLock second = lock("b", 5, "s1", 1);
    NodeLockSet set = new NodeLockSet(List.of(second, first), List.of());

    assertThat(set.serving(1, T0.plusSeconds(6))).containsExactly(first, second);
    NodeLockSet started = set.without("b").with(second.afterHandout(), T0.plusSeconds(6));
    assertThat(started.serving(1, T0.plusSeconds(6)))
        .extracting(NodeLock::podUid)
        .containsExactly("b", "a");
    assertThat(set.serving(2, T0)).isEmpty();
  }

  @Test
  void refusesTwoEntriesForOnePod() {
    assertThatThrownBy(
            () -> new NodeLockSet(List.of(lock("a", 0, "s", 1), lock("a", 1, "s", 2)), List.of()))
        .hasMessage("holders name pod UID a more than once");
  }

  @Test
  void refusesCountsOutOfOrder() {
    assertThatThrownBy(() -> lock("a", 0, "s", 2, 1))
        .hasMessage("counts must be distinct and ascending, found [2, 1]");
  }
}
