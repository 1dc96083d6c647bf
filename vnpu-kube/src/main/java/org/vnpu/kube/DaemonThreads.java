package org.vnpu.kube;

import java.util.concurrent.ThreadFactory;

/**
 * Threads of the long-running components: named after their job, so a thread dump says who is who,
 * and daemons, so a stopped component never keeps the JVM alive.
 */
public final class DaemonThreads {

  private DaemonThreads() {}

  /** Every thread it makes is a daemon called {@code name}. */
  public static ThreadFactory named(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
