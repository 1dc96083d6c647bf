package org.vnpu.scheduler;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The memory the extender's requests in flight may hold, shared by all of them: a parsed JSON
 * request takes about {@link #EXPANSION} times its body, so a request of {@code n} bytes takes
 * {@code n × EXPANSION} of the budget until it is answered. One that cannot get its share in time
 * is turned away instead of running the JVM out of memory.
 */
final class RequestBudget {

  static final int EXPANSION = 30;
  private static final int KIB = 1024;

  /** What one request holds; closing gives it back. */
  interface Share extends AutoCloseable {
    @Override
    void close();
  }

  private final int totalKib;
  private final Semaphore free;
  private final Duration wait;

  /**
   * @param bytes the memory all requests in flight may hold
   * @param wait how long a request waits for its share
   */
  RequestBudget(long bytes, Duration wait) {
    this.totalKib = (int) Math.min(Integer.MAX_VALUE, bytes / KIB);
    this.free = new Semaphore(totalKib);
    this.wait = wait;
  }

  /** A budget of {@code 1/divisor} of the JVM's maximum heap; requests wait up to 5 s. */
  static RequestBudget ofHeap(int divisor) {
    return new RequestBudget(Runtime.getRuntime().maxMemory() / divisor, Duration.ofSeconds(5));
  }

  /**
   * The share of a request of {@code bytes} (at least 1 KiB, at most the whole budget), or null
   * when it could not be had in time.
   */
  Share take(long bytes) throws InterruptedException {
    int kib = (int) Math.min(totalKib, Math.max(1, bytes * EXPANSION / KIB));
    if (!free.tryAcquire(kib, wait.toMillis(), TimeUnit.MILLISECONDS)) {
      return null;
    }
    return () -> free.release(kib);
  }

  String describe() {
    return (totalKib - free.availablePermits()) / KIB
        + " of "
        + totalKib / KIB
        + " MiB of the request budget in use";
  }
}
