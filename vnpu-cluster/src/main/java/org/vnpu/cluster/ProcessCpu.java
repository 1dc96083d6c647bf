package org.vnpu.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU seconds a process has used, user and system, from {@code /proc/<pid>/stat} (fields 14 and 15,
 * in clock ticks; proc(5)). Linux only, as the real control plane is.
 */
final class ProcessCpu {

  /** Clock ticks per second: 100 on every Linux architecture the kernel exports to user space. */
  private static final double TICKS = 100.0;

  private ProcessCpu() {}

  /** Seconds of CPU {@code pid} has used so far; NaN when it is gone or unreadable. */
  static double seconds(long pid) {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    } catch (IOException e) {
      return Double.NaN;
    }
    // The command name (field 2) is in parentheses and may hold spaces: count after its end.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS;
  }
}
