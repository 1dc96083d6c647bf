package org.vnpu.kube;

import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Threads of the long-running components: named after their job, so a thread dump says who is who,
 * and daemons, so a stopped component never keeps the JVM alive.
 */
public final class DaemonThreads {

  private static final Logger LOG = LoggerFactory.getLogger(DaemonThreads.class);

  private DaemonThreads() {}

  /**
   * {@code task} for a periodic schedule that outlives its failures: a scheduled executor stops
   * repeating a task, silently, at the first throwable it lets out, so this logs any (an error of a
   * native library included) and lets the next run try again.
   */
  public static Runnable surviving(String what, Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException | LinkageError e) {
        LOG.error("{} failed and will run again: {}", what, e.toString(), e);
      }
    };
  }

  /** Every thread it makes is a daemon called {@code name}. */
  public static ThreadFactory named(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
