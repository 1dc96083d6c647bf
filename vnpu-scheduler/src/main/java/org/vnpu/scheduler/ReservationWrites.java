package org.vnpu.scheduler;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kube.DaemonThreads;

/**
 * Runs the writes of reservations after the verb that decided them has answered: Volcano calls
 * {@code allocateFunc} once per task, one task after the other within its session, so a write made
 * inside the verb would hold up every task behind it (ADR 0028). The writes of one pod run in the
 * order they were asked for, and an undo of a pod's reservation first waits for its writes under
 * way; pods' writes run side by side on a few threads.
 */
final class ReservationWrites {

  private static final Logger LOG = LoggerFactory.getLogger(ReservationWrites.class);

  /** How many pods' writes run at once: each is a round trip to the API server. */
  static final int THREADS = 4;

  /**
   * The longest an undo waits for its pod's writes; they are retried round trips, not unbounded.
   */
  static final Duration UNDO_WAIT = Duration.ofSeconds(30);

  /** What a write does; it fails with the reason its reservation was undone. */
  @FunctionalInterface
  interface Write<T> {
    T run() throws SchedulingException;
  }

  private final Executor executor;
  private final Map<String, CompletableFuture<?>> underWay = new ConcurrentHashMap<>();

  ReservationWrites() {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            DaemonThreads.named("vnpu-reservation-writes"));
    pool.allowCoreThreadTimeOut(true);
    this.executor = pool;
  }

  /**
   * Runs {@code write} for the pod {@code uid} after the writes asked for it before; the future
   * completes with its result, or exceptionally with its {@link SchedulingException}.
   */
  <T> CompletableFuture<T> submit(String uid, Write<T> write) {
    CompletableFuture<T> next = new CompletableFuture<>();
    CompletableFuture<?> before = underWay.put(uid, next);
    CompletableFuture<?> turn = before == null ? CompletableFuture.completedFuture(null) : before;
    turn.handleAsync((result, failure) -> run(write, next), executor);
    next.whenComplete((result, failure) -> underWay.remove(uid, next));
    return next;
  }

  private static <T> CompletableFuture<T> run(Write<T> write, CompletableFuture<T> future) {
    try {
      future.complete(write.run());
    } catch (SchedulingException | RuntimeException e) {
      future.completeExceptionally(e);
    }
    return future;
  }

  /**
   * Waits until every write asked for so far is done, whatever its outcome, for at most {@code
   * limit}: a scheduler that stops lets the reservations it has answered for land first.
   *
   * @return whether they all ended within the limit
   */
  boolean awaitAll(Duration limit) {
    // A pod's latest write ends after its earlier ones: the latest of each pod is enough.
    return ended(
        CompletableFuture.allOf(underWay.values().toArray(CompletableFuture[]::new)), limit);
  }

  /**
   * Waits until the writes asked for the pod {@code uid} so far are done, whatever their outcome.
   */
  void awaitWritten(String uid) {
    CompletableFuture<?> last = underWay.get(uid);
    if (last != null && !ended(last, UNDO_WAIT)) {
      LOG.warn(
          "pod {}: its reservation's writes still run after {}; undoing anyway", uid, UNDO_WAIT);
    }
  }

  /**
   * Whether {@code writes} ended within {@code limit}, whatever their outcome: each failure was
   * logged where it happened, and only the end matters to a wait.
   */
  private static boolean ended(CompletableFuture<?> writes, Duration limit) {
    try {
      writes.get(limit.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException | CompletionException e) {
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
