package io.crigate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/** Collects the run's numbers and renders them as the markdown kept in docs/benchmarks.md. */
final class BenchmarkReport {

  private static final double MIB = 1024.0 * 1024.0;
  /** The sides of a latency row, by name. */
  static final String RELAY = "relay";
  static final String CRIGATE = "crigate";
  static final String BASELINE = "baseline";
  static final String JAVA_BYTES = "java byte relay";
  static final String JAVA_HPACK = "java hpack relay";

  /** Pod lifecycle rounds: side 0 is direct, 1 via crigate, 2 (when it ran) the baseline build. */
  record Lifecycle(LifecycleRounds.Result rounds) {
    Samples direct() {
      return rounds.side(0).total();
    }

    Samples viaCrigate() {
      return rounds.side(1).total();
    }

    Samples baseline() {
      return rounds.sides().size() > 2 ? rounds.side(2).total() : new Samples();
    }

    MedianRatio ratio() {
      return MedianRatio.ofMedians(viaCrigate(), direct());
    }

    MedianRatio pairedRatio() {
      return MedianRatio.paired(viaCrigate(), direct());
    }

    /** The per-round ratio over only the rounds where crigate ran first, or only those where it did not. */
    MedianRatio pairedRatio(boolean crigateFirst) {
      List<Samples> rounds = this.rounds.byOrder(1, 0, crigateFirst);
      return MedianRatio.paired(rounds.get(0), rounds.get(1));
    }

    MedianRatio baselineRatio() {
      return MedianRatio.paired(baseline(), direct());
    }

    /** crigate against the baseline build in the same rounds: whether the change itself moved the lifecycle. */
    MedianRatio againstBaseline() {
      return MedianRatio.paired(viaCrigate(), baseline());
    }
  }

  private Samples startsToServing = new Samples();
  private Samples baselineStartsToServing = new Samples();
  private final String loadAtStart = loadAverage();
  private Samples idleRss = new Samples();
  private Samples loadedRss = new Samples();
  private Samples baselineIdleRss = new Samples();
  private Samples baselineLoadedRss = new Samples();
  private int loadedPods;
  private Lifecycle lifecycle;
  private List<PairedLatency.Result> latencies = List.of();
  private String sidesLine = "";

  void startsToServing(Samples starts, Samples baselineStarts) {
    startsToServing = starts;
    baselineStartsToServing = baselineStarts;
  }

  /** What each crigate side ran: its checkout and its extra JVM options, so a run comparing options says which. */
  void sides(String crigate, String baseline) {
    sidesLine = "crigate: " + crigate + (baseline == null ? "" : "; baseline: " + baseline) + "\n";
  }

  /** Resident-set readings in bytes: idle after warm-up, and with {@code pods} pods after the timed calls. */
  void rss(int pods, Samples idle, Samples loaded) {
    loadedPods = pods;
    idleRss = idle;
    loadedRss = loaded;
  }

  void baselineRss(Samples idle, Samples loaded) {
    baselineIdleRss = idle;
    baselineLoadedRss = loaded;
  }

  void lifecycle(Lifecycle measured) {
    lifecycle = measured;
  }

  void latencies(List<PairedLatency.Result> measured) {
    latencies = List.copyOf(measured);
  }

  String markdown(String runtimeEndpoint) {
    StringBuilder md = new StringBuilder();
    md.append("Run at ").append(Instant.now()).append(" on ").append(machine())
        .append(", Java ").append(Runtime.version()).append(", runtime ").append(runtimeEndpoint).append("\n")
        .append("Load average (1/5/15 min) at start ").append(loadAtStart).append(", at end ").append(loadAverage())
        .append("\n").append(sidesLine).append("\n");
    boolean baseline = latencies.stream().anyMatch(r -> r.sides().stream().anyMatch(side -> side.name().equals(BASELINE)));
    md.append("| call | n | direct p50 µs | relay p50 µs | via crigate p50 µs | relay added p50 µs | crigate added p50 µs"
        + " | direct p99 µs | relay added p99 µs | crigate added p99 µs | relay CPU µs/call | crigate CPU µs/call |");
    md.append(baseline ? " baseline build added p50 / p99 µs, CPU µs/call |\n" : "\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|").append(baseline ? "---:|\n" : "\n");
    for (PairedLatency.Result r : latencies) {
      md.append("| %s | %d | %.0f | %.0f | %.0f | %.0f | **%.0f** | %.0f | %.0f | **%.0f** | %.0f | %.0f |".formatted(r.call(),
          r.direct().count(), r.direct().percentileMicros(50), r.side(RELAY).samples().percentileMicros(50),
          r.side(CRIGATE).samples().percentileMicros(50), r.addedMicros(RELAY, 50), r.addedMicros(CRIGATE, 50),
          r.direct().percentileMicros(99), r.addedMicros(RELAY, 99), r.addedMicros(CRIGATE, 99),
          r.side(RELAY).cpuNanosPerCall() / 1000, r.side(CRIGATE).cpuNanosPerCall() / 1000));
      if (baseline) {
        md.append(" %.0f / %.0f, %.0f |".formatted(r.addedMicros(BASELINE, 50), r.addedMicros(BASELINE, 99),
            r.side(BASELINE).cpuNanosPerCall() / 1000));
      }
      md.append("\n");
    }
    hops(md);
    md.append("\n| measure | value |\n|---|---:|\n");
    if (lifecycle != null) {
      md.append("| pod lifecycle median, direct (run, create, start, stop, remove; n=%d) | %.1f ms |\n"
          .formatted(lifecycle.direct().count(), lifecycle.direct().medianMillis()));
      md.append("| pod lifecycle median, via crigate | %.1f ms |\n".formatted(lifecycle.viaCrigate().medianMillis()));
      md.append("| lifecycle ratio (via / direct), ratio of medians [95%% bootstrap interval over rounds] | %s |\n"
          .formatted(interval(lifecycle.ratio())));
      md.append("| lifecycle ratio (via / direct), median of each round's own ratio [95%% interval] | **%s** |\n"
          .formatted(interval(lifecycle.pairedRatio())));
      if (lifecycle.baseline().count() > 0) {
        md.append("| baseline build lifecycle median / ratio to direct, per round (same rounds) | %.1f ms / %s |\n"
            .formatted(lifecycle.baseline().medianMillis(), interval(lifecycle.baselineRatio())));
        md.append("| crigate / baseline build lifecycle, per round (same rounds) | %s |\n".formatted(interval(lifecycle.againstBaseline())));
      }
      md.append("| same, only rounds crigate ran first / only rounds it did not | %s / %s |\n"
          .formatted(interval(lifecycle.pairedRatio(true)), interval(lifecycle.pairedRatio(false))));
    }
    if (idleRss.count() > 0) {
      md.append("| crigate RSS idle, median (min-max) of %d readings 1 s apart | **%s** |\n"
          .formatted(idleRss.count(), mebibytes(idleRss)));
      md.append("| crigate RSS with %d pods | **%s** |\n".formatted(loadedPods, mebibytes(loadedRss)));
    }
    if (baselineIdleRss.count() > 0) {
      md.append("| baseline build RSS idle / with %d pods | %s / %s |\n"
          .formatted(loadedPods, mebibytes(baselineIdleRss), mebibytes(baselineLoadedRss)));
    }
    if (startsToServing.count() > 0) {
      md.append("| start to serving, first of %d restarts (spawn to first Version answer) | %.0f ms |\n"
          .formatted(startsToServing.count(), startsToServing.firstMillis()));
      md.append("| start to serving, median / max of all %d | **%.0f ms** / %.0f ms |\n".formatted(
          startsToServing.count(), startsToServing.medianMillis(), startsToServing.percentileMicros(100) / 1000));
    }
    if (baselineStartsToServing.count() > 0) {
      md.append("| baseline build start to serving, first / median / max of %d (alternating with crigate's) | %.0f / %.0f / %.0f ms |\n"
          .formatted(baselineStartsToServing.count(), baselineStartsToServing.firstMillis(),
              baselineStartsToServing.medianMillis(), baselineStartsToServing.percentileMicros(100) / 1000));
    }
    if (lifecycle != null) {
      md.append(lifecycleBreakdown(lifecycle.rounds()));
    }
    return md.toString();
  }

  /**
   * Where the lifecycle's time goes: each call's median per side and the median of its per-round
   * difference from direct, then the CPU each watched process used per lifecycle of each side.
   */
  private static String lifecycleBreakdown(LifecycleRounds.Result rounds) {
    StringBuilder md = new StringBuilder("\n| lifecycle call | n |");
    List<LifecycleRounds.Timings> sides = rounds.sides();
    LifecycleRounds.Timings direct = sides.getFirst();
    for (LifecycleRounds.Timings side : sides) {
      md.append(" %s p50 ms |".formatted(side.name()));
    }
    for (LifecycleRounds.Timings side : sides.subList(1, sides.size())) {
      md.append(" %s − direct, median per round ms |".formatted(side.name()));
    }
    md.append("\n|---|---:|").append("---:|".repeat(2 * sides.size() - 1)).append("\n");
    for (PodFleet.Step step : PodFleet.Step.values()) {
      md.append("| %s | %d |".formatted(step.call, direct.step(step).count()));
      for (LifecycleRounds.Timings side : sides) {
        md.append(" %.2f |".formatted(side.step(step).medianMillis()));
      }
      for (LifecycleRounds.Timings side : sides.subList(1, sides.size())) {
        md.append(" %+.2f |".formatted(medianDifferenceMillis(side.step(step), direct.step(step))));
      }
      md.append("\n");
    }
    List<String> rows = rounds.rows();
    if (!rows.isEmpty()) {
      md.append("\n| CPU per lifecycle, median ms (a thread group's median, so the groups need not add up to the process's) |");
      sides.forEach(side -> md.append(" during %s lifecycles |".formatted(side.name())));
      md.append("\n|---|").append("---:|".repeat(sides.size())).append("\n");
      for (int m = 0; m < rows.size(); m++) {
        md.append("| %s |".formatted(rows.get(m)));
        for (LifecycleRounds.Timings side : sides) {
          md.append(" %.2f |".formatted(side.cpu().get(m).medianMillis()));
        }
        md.append("\n");
      }
    }
    return md.toString();
  }

  /** The median of {@code side − direct} over the rounds both ran, in milliseconds. */
  private static double medianDifferenceMillis(Samples side, Samples direct) {
    int rounds = Math.min(side.count(), direct.count());
    long[] top = side.values(rounds);
    long[] bottom = direct.values(rounds);
    long[] differences = new long[rounds];
    for (int i = 0; i < rounds; i++) {
      differences[i] = top[i] - bottom[i];
    }
    Arrays.sort(differences);
    double median = rounds % 2 == 1 ? differences[rounds / 2] : (differences[rounds / 2 - 1] + differences[rounds / 2]) / 2.0;
    return median / 1_000_000.0;
  }

  /**
   * Every side of every call against direct in the same run: socat, the two Java floors and crigate,
   * with p90 next to p99 and the p99 difference's bootstrap interval over rounds (a difference of two
   * noisy tails moves by hundreds of µs from run to run), crigate's added latency against each floor,
   * and CPU split into the I/O thread's and the rest.
   */
  private void hops(StringBuilder md) {
    if (latencies.isEmpty()) {
      return;
    }
    md.append("\nEvery hop, added to direct in the same run (calls alternate one by one; the p99 interval is a"
        + " 95% bootstrap over rounds; CPU per call, I/O thread / whole process):\n\n| call | side | p50 µs"
        + " | added p50 µs | added p90 µs | added p99 µs [95%] | crigate minus this side, p50 / p99 µs | CPU µs/call |"
        + "\n|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (PairedLatency.Result r : latencies) {
      for (PairedLatency.Measured side : r.sides()) {
        Samples crigate = r.side(CRIGATE).samples();
        MedianRatio p99 = MedianRatio.percentileDifference(side.samples(), r.direct(), 99);
        md.append("| %s | %s | %.0f | %.0f | %.0f | %.0f [%.0f, %.0f] | %.0f / %.0f | %s%.0f |\n".formatted(r.call(),
            side.name(), side.samples().percentileMicros(50), r.addedMicros(side.name(), 50),
            r.addedMicros(side.name(), 90), p99.ratio() / 1000, p99.low() / 1000, p99.high() / 1000,
            crigate.percentileMicros(50) - side.samples().percentileMicros(50),
            crigate.percentileMicros(99) - side.samples().percentileMicros(99),
            Double.isNaN(side.ioThreadNanosPerCall()) ? "" : "%.0f / ".formatted(side.ioThreadNanosPerCall() / 1000),
            side.cpuNanosPerCall() / 1000));
      }
    }
  }

  private static String interval(MedianRatio ratio) {
    return "%.3f [%.3f, %.3f]".formatted(ratio.ratio(), ratio.low(), ratio.high());
  }

  private static String mebibytes(Samples bytes) {
    return "%.1f MiB (%.1f-%.1f)".formatted(bytes.percentile(50) / MIB, bytes.percentile(0) / MIB, bytes.percentile(100) / MIB);
  }

  /** The machine is shared; its load explains a noisy run, so the report carries it. */
  private static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return String.join(" ", fields[0], fields[1], fields[2]);
    } catch (IOException unreadable) {
      return "unknown";
    }
  }

  private static String machine() {
    String cpu = "unknown CPU";
    try {
      cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name")).findFirst()
          .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse(cpu);
    } catch (IOException ignored) {
      // The report still stands without the CPU model; the core count below is always known.
    }
    return "%d cores (%s)".formatted(Runtime.getRuntime().availableProcessors(), cpu);
  }
}
