package io.crigate.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How often this host takes a core away from a thread that never blocks, and for how long: each of
 * N threads spins on {@link System#nanoTime()} and counts the gaps between consecutive readings by
 * length. With one thread a core stays free for everything else the host runs; with as many threads
 * as cores, any other runnable task (a daemon, a kernel thread) must preempt one of them. An HTTP
 * call whose client and server both hold a core is in the second case while its bytes move, so the
 * gaps counted there are what a latency percentile cannot get below.
 *
 * <p>Run: {@code bash scripts/bench-host-stalls.sh [threads=2] [seconds=20]}
 */
public final class HostStalls {

  /** Upper bounds of the gap classes, in microseconds; the last class is everything longer. */
  private static final long[] BOUNDS_MICROS = {500, 1000, 2000, 4000, 8000};

  private HostStalls() {}

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    long[][] counts = new long[threads][BOUNDS_MICROS.length + 1];
    long[] stalledNanos = new long[threads];
    Thread[] spinners = new Thread[threads];
    String loadBefore = Files.readString(Path.of("/proc/loadavg")).trim();
    for (int t = 0; t < threads; t++) {
      int index = t;
      spinners[t] = Thread.ofPlatform().name("spinner-" + t).start(() -> spin(seconds, counts[index], stalledNanos, index));
    }
    for (Thread spinner : spinners) {
      spinner.join();
    }
    System.out.printf(Locale.ROOT, "%d spinning threads, %d s, %d cores; load average before %s%n", threads, seconds,
        Runtime.getRuntime().availableProcessors(), loadBefore);
    for (int t = 0; t < threads; t++) {
      StringBuilder line = new StringBuilder();
      long lower = 200;
      for (int c = 0; c < counts[t].length; c++) {
        String range = c < BOUNDS_MICROS.length ? "%.1f-%.1f ms".formatted(lower / 1e3, BOUNDS_MICROS[c] / 1e3) : "> %.1f ms".formatted(lower / 1e3);
        line.append(String.format(Locale.ROOT, "  %s: %d", range, counts[t][c]));
        lower = c < BOUNDS_MICROS.length ? BOUNDS_MICROS[c] : lower;
      }
      System.out.printf(Locale.ROOT, "thread %d, gaps%s; %.1f ms without the core in all%n", t, line, stalledNanos[t] / 1e6);
    }
  }

  /** Counts each gap over 0.2 ms between two readings of the clock in its class. */
  private static void spin(int seconds, long[] counts, long[] stalledNanos, int index) {
    long last = System.nanoTime();
    long end = last + seconds * 1_000_000_000L;
    while (last < end) {
      long now = System.nanoTime();
      long gapMicros = (now - last) / 1000;
      if (gapMicros > 200) {
        stalledNanos[index] += now - last;
        int c = 0;
        while (c < BOUNDS_MICROS.length && gapMicros > BOUNDS_MICROS[c]) {
          c++;
        }
        counts[c]++;
      }
      last = now;
    }
  }
}
