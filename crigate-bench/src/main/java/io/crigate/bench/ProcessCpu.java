package io.crigate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

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

  /** What a JVM thread works for, told from its name: where a process's CPU per call goes. */
  enum Group {
    /**
     * The HTTP server's threads, on which each request (the verb too) runs: the extender's Netty
     * event loops and the virtual threads of calls that wait on a registry (and their carriers), or
     * Helidon's listeners and virtual threads in builds before the extender moved to Netty.
     */
    HTTP,
    /** The collector's workers, concurrent markers and refinement, and the VM thread that runs the pauses. */
    GC,
    /** The JIT compilers. */
    JIT,
    /** The API server clients' event loops and the informers' threads. */
    INFORMER,
    OTHER;

    /** The group of a thread by its {@code comm} (at most 15 characters of its Java name). */
    static Group of(String comm) {
      if (comm.startsWith("extender-http") || comm.startsWith("ForkJoinPool") || comm.startsWith("helidon") || comm.startsWith("server-")
          || comm.startsWith("[0x") || comm.startsWith("VirtualThread") || comm.startsWith("Read-Poller")
          || comm.startsWith("Write-Poller")) {
        return HTTP;
      }
      if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.startsWith("VM Thread")
          || comm.startsWith("GC ") || comm.startsWith("ParGC") || comm.startsWith("ZGC")) {
        return GC;
      }
      if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
        return JIT;
      }
      if (comm.startsWith("vert.x") || comm.startsWith("Informer") || comm.startsWith("OkHttp")
          || comm.startsWith("HttpClient") || comm.startsWith("Executor") || comm.startsWith("pool-")) {
        return INFORMER;
      }
      return OTHER;
    }
  }

  /**
   * One thread's name and CPU time so far: {@code comm} from {@code /proc/<pid>/task/<tid>/stat},
   * the time from {@code schedstat} (nanoseconds) where the kernel keeps it, else {@code stat}'s
   * utime + stime (10 ms ticks).
   */
  record ThreadCpu(String comm, long nanos) {}

  /** Every live thread of {@code pid} by its id. */
  static Map<Long, ThreadCpu> threads(long pid) throws IOException {
    Map<Long, ThreadCpu> threads = new HashMap<>();
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks.toList()) {
        try {
          String stat = Files.readString(task.resolve("stat"));
          long nanos;
          try {
            nanos = Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[0]);
          } catch (NoSuchFileException noSchedstat) {
            nanos = statTicks(stat) * (1_000_000_000L / CLOCK_TICKS);
          }
          threads.put(Long.parseLong(task.getFileName().toString()), new ThreadCpu(comm(stat), nanos));
        } catch (IOException exited) {
          // ended between listing and reading
        }
      }
    }
    return threads;
  }

  /** {@code /proc}'s unit of CPU time (USER_HZ), 100 on every Linux architecture crigate runs on. */
  static final long CLOCK_TICKS = 100;

  /** The command in a {@code stat} line: between the first '(' and the last ')', as it may hold both. */
  static String comm(String stat) {
    return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  }

  /** utime + stime of a {@code stat} line, in ticks (fields 14 and 15, counted after the command). */
  static long statTicks(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  /**
   * The CPU each group used between two snapshots of one process: a thread in both counts its
   * growth, a thread only in {@code after} (started meanwhile) all its time; a thread that ended
   * meanwhile has taken its time since {@code before} with it, which is lost.
   */
  static Map<Group, Long> byGroup(Map<Long, ThreadCpu> before, Map<Long, ThreadCpu> after) {
    Map<Group, Long> groups = new EnumMap<>(Group.class);
    for (Group group : Group.values()) {
      groups.put(group, 0L);
    }
    after.forEach((tid, now) -> {
      ThreadCpu then = before.get(tid);
      long used = then != null && then.comm().equals(now.comm()) ? now.nanos() - then.nanos() : now.nanos();
      groups.merge(Group.of(now.comm()), used, Long::sum);
    });
    return groups;
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
    for (ThreadCpu thread : threads(pid).values()) {
      total[JvmThreads.of(thread.comm()).ordinal()] += thread.nanos();
    }
    return total;
  }
}
