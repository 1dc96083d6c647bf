package org.vnpu.scheduler;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.vnpu.kube.DaemonThreads;

/**
 * Whether a monitor can still be had: the liveness probe's question of the scheduler, whose
 * decisions all hold its state's lock. The probe takes the lock on a thread of its own, so a
 * decision stuck holding it makes the answer false until it lets go, without blocking the asker.
 */
final class MonitorLiveness {

  private final Object monitor;
  private ExecutorService probe;

  MonitorLiveness(Object monitor) {
    this.monitor = monitor;
  }

  /** Whether the monitor can be had within {@code within}. */
  boolean responsive(Duration within) {
    Future<?> attempt;
    synchronized (this) {
      if (probe == null) {
        probe = Executors.newSingleThreadExecutor(DaemonThreads.named("vnpu-scheduler-liveness"));
      }
      attempt = probe.submit(this::touch);
    }
    try {
      attempt.get(within.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException | ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void touch() {
    synchronized (monitor) {
      // Had: the monitor is free.
    }
  }
}
