package io.crigate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time a process has used, summed over its threads from the scheduler's nanosecond accounting
 * ({@code /proc/<pid>/task/<tid>/schedstat}); {@code /proc/<pid>/stat} counts in 10 ms ticks, too
 * coarse for a call that costs tens of microseconds.
 */
final class ProcessCpu {

  private ProcessCpu() {}

  static long nanos(long pid) throws IOException {
    return nanos(pid, null);
  }

  /** The same, for the threads whose name ({@code comm}, at most 15 characters) starts with {@code prefix}; null: all. */
  static long nanos(long pid, String prefix) throws IOException {
    long total = 0;
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks.toList()) {
        try {
          if (prefix != null && !Files.readString(task.resolve("comm")).startsWith(prefix)) {
            continue;
          }
          total += Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[0]);
        } catch (IOException exited) {
          // A thread that ended between listing and reading; its time is gone from the sum either way.
        }
      }
    }
    return total;
  }
}
