package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A closing scheduler waits for the writes of the reservations it has answered for. */
class ReservationWritesTest {

  private final ReservationWrites writes = new ReservationWrites();

  @Test
  void awaitAllWaitsForEveryPodsWritesUnderWayWhateverTheirOutcome() throws Exception {
    CountDownLatch apiServer = new CountDownLatch(1);
    CompletableFuture<String> slow =
        writes.submit(
            "pod-a",
            () -> {
              await(apiServer);
              return "written";
            });
    CompletableFuture<String> failed =
        writes.submit(
            "pod-b",
            () -> {
              throw new SchedulingException("the lock was refused");
            });

    assertThat(writes.awaitAll(Duration.ofMillis(200))).as("pod-a's write still runs").isFalse();
    apiServer.countDown();

    assertThat(writes.awaitAll(Duration.ofSeconds(10))).isTrue();
    assertThat(slow).isCompletedWithValue("written");
    assertThat(failed).isCompletedExceptionally();
  }

  @Test
  void awaitAllWaitsForAPodsLaterWriteAfterItsEarlierOne() throws Exception {
    CountDownLatch apiServer = new CountDownLatch(1);
    writes.submit(
        "pod-a",
        () -> {
          await(apiServer);
          return "allocation";
        });
    CompletableFuture<String> lock = writes.submit("pod-a", () -> "lock");

    assertThat(writes.awaitAll(Duration.ofMillis(200))).isFalse();
    apiServer.countDown();

    assertThat(writes.awaitAll(Duration.ofSeconds(10))).isTrue();
    assertThat(lock).isCompletedWithValue("lock");
  }

  private static void await(CountDownLatch latch) throws SchedulingException {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new SchedulingException("the test's API server never answered");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SchedulingException("interrupted");
    }
  }
}
