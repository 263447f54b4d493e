package io.crigate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/** Collects the run's numbers and renders them as the markdown kept in docs/benchmarks.md. */
final class BenchmarkReport {

  private static final double MIB = 1024.0 * 1024.0;

  record Lifecycle(Samples direct, Samples viaCrigate) {
    double ratio() {
      return viaCrigate.medianMillis() / direct.medianMillis();
    }
  }

  private Samples startsToServing = new Samples();
  private long idleRss;
  private long loadedRss;
  private int loadedPods;
  private Lifecycle lifecycle;
  private List<PairedLatency.Result> latencies = List.of();

  void startsToServing(Samples starts) {
    startsToServing = starts;
  }

  void idleRss(long bytes) {
    idleRss = bytes;
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
        .append(", Java ").append(Runtime.version()).append(", runtime ").append(runtimeEndpoint).append("\n\n");
    md.append("| call | n | direct p50 µs | via crigate p50 µs | added p50 µs | direct p99 µs | via crigate p99 µs | added p99 µs |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (PairedLatency.Result r : latencies) {
      md.append("| %s | %d | %.0f | %.0f | **%.0f** | %.0f | %.0f | **%.0f** |\n".formatted(r.call(),
          r.direct().count(), r.direct().percentileMicros(50), r.viaCrigate().percentileMicros(50), r.addedP50Micros(),
          r.direct().percentileMicros(99), r.viaCrigate().percentileMicros(99), r.addedP99Micros()));
    }
    md.append("\n| measure | value |\n|---|---:|\n");
    if (lifecycle != null) {
      md.append("| pod lifecycle median, direct (run, create, start, stop, remove; n=%d) | %.1f ms |\n"
          .formatted(lifecycle.direct().count(), lifecycle.direct().medianMillis()));
      md.append("| pod lifecycle median, via crigate | %.1f ms |\n".formatted(lifecycle.viaCrigate().medianMillis()));
      md.append("| lifecycle ratio (via / direct) | **%.3f** |\n".formatted(lifecycle.ratio()));
    }
    md.append("| crigate RSS idle | **%.1f MiB** |\n".formatted(idleRss / MIB));
    md.append("| crigate RSS with %d pods | **%.1f MiB** |\n".formatted(loadedPods, loadedRss / MIB));
    if (startsToServing.count() > 0) {
      md.append("| start to serving, first of %d restarts (spawn to first Version answer) | %.0f ms |\n"
          .formatted(startsToServing.count(), startsToServing.firstMillis()));
      md.append("| start to serving, median / max of all %d | **%.0f ms** / %.0f ms |\n".formatted(
          startsToServing.count(), startsToServing.medianMillis(), startsToServing.percentileMicros(100) / 1000));
    }
    return md.toString();
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
