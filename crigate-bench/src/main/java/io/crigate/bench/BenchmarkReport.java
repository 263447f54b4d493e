package io.crigate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/** Collects the run's numbers and renders them as the markdown kept in docs/benchmarks.md. */
final class BenchmarkReport {

  private static final double MIB = 1024.0 * 1024.0;
  /** The sides of a latency row, by name. */
  static final String RELAY = "relay";
  static final String CRIGATE = "crigate";
  static final String BASELINE = "baseline";

  /** Pod lifecycle times per side; {@code baseline} is empty when no baseline checkout ran. */
  record Lifecycle(Samples direct, Samples viaCrigate, Samples baseline) {
    double ratio() {
      return viaCrigate.medianMillis() / direct.medianMillis();
    }

    double baselineRatio() {
      return baseline.medianMillis() / direct.medianMillis();
    }
  }

  private Samples startsToServing = new Samples();
  private Samples baselineStartsToServing = new Samples();
  private final String loadAtStart = loadAverage();
  private long idleRss;
  private long loadedRss;
  private long baselineIdleRss;
  private long baselineLoadedRss;
  private int loadedPods;
  private Lifecycle lifecycle;
  private List<PairedLatency.Result> latencies = List.of();

  void startsToServing(Samples starts, Samples baselineStarts) {
    startsToServing = starts;
    baselineStartsToServing = baselineStarts;
  }

  void idleRss(long bytes) {
    idleRss = bytes;
  }

  void baselineRss(long idle, long loaded) {
    baselineIdleRss = idle;
    baselineLoadedRss = loaded;
  }

  void loadedRss(int pods, long bytes) {
    loadedPods = pods;
    loadedRss = bytes;
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
        .append("\n\n");
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
    md.append("\n| measure | value |\n|---|---:|\n");
    if (lifecycle != null) {
      md.append("| pod lifecycle median, direct (run, create, start, stop, remove; n=%d) | %.1f ms |\n"
          .formatted(lifecycle.direct().count(), lifecycle.direct().medianMillis()));
      md.append("| pod lifecycle median, via crigate | %.1f ms |\n".formatted(lifecycle.viaCrigate().medianMillis()));
      md.append("| lifecycle ratio (via / direct) | **%.3f** |\n".formatted(lifecycle.ratio()));
      if (lifecycle.baseline().count() > 0) {
        md.append("| baseline build lifecycle median / ratio (same rounds) | %.1f ms / %.3f |\n"
            .formatted(lifecycle.baseline().medianMillis(), lifecycle.baselineRatio()));
      }
    }
    md.append("| crigate RSS idle | **%.1f MiB** |\n".formatted(idleRss / MIB));
    if (baselineIdleRss > 0) {
      md.append("| baseline build RSS idle / with %d pods | %.1f / %.1f MiB |\n"
          .formatted(loadedPods, baselineIdleRss / MIB, baselineLoadedRss / MIB));
    }
    md.append("| crigate RSS with %d pods | **%.1f MiB** |\n".formatted(loadedPods, loadedRss / MIB));
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
    return md.toString();
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
