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

  /**
   * What a JVM's threads do, told by their names ({@code comm}, cut to 15 characters): each group's
   * CPU is read in one pass over the threads, so the groups of one reading add up to the process.
   */
  enum JvmThreads {
    EVENT_LOOP("event loop", "crigate-io-"),
    /** Virtual threads run on these: blocking handlers, and SQLite, which they call through JNI. */
    CARRIERS("virtual-thread carriers (blocking calls, SQLite)", "ForkJoinPool-", "VirtualThread-"),
    JIT("JIT compilers", "C1 CompilerThre", "C2 CompilerThre"),
    GC_AND_VM("GC and VM (SerialGC collects on the VM thread)", "VM Thread", "GC Thread", "G1 ", "VM Periodic"),
    OTHER("other threads");

    final String label;
    private final String[] prefixes;

    JvmThreads(String label, String... prefixes) {
      this.label = label;
      this.prefixes = prefixes;
    }

    static JvmThreads of(String comm) {
      for (JvmThreads group : values()) {
        for (String prefix : group.prefixes) {
          if (comm.startsWith(prefix)) {
            return group;
          }
        }
      }
      return OTHER;
    }
  }

  /** CPU time of {@code pid}'s threads per {@link JvmThreads} group, indexed by its ordinal. */
  static long[] nanosByThreadGroup(long pid) throws IOException {
    long[] total = new long[JvmThreads.values().length];
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks.toList()) {
        try {
          JvmThreads group = JvmThreads.of(Files.readString(task.resolve("comm")).strip());
          total[group.ordinal()] += Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[0]);
        } catch (IOException exited) {
          // as above
        }
      }
    }
    return total;
  }
}
