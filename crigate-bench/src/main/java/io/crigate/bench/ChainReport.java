package io.crigate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Turns the whole-chain experiment's rows into its tables (per run, means over seeds per node count
 * and scorer, the targets of issue 18, the burst) and the plot of bytes against CPU balance.
 * Usage: {@code ChainReport results.tsv burst.tsv plot.png [starts.tsv]} (a missing burst file is
 * skipped; with the per-start rows, where the starts' time went: {@link StartSteps}).
 */
public final class ChainReport {

  /** One row {@link ChainExperiment} appended. */
  record Run(String scorer, int nodes, long seed, int pods, double mb, int pulls, int gcRemovals, double p50,
      double p95, double meanStart, double cvPods, double cvCpu, int unschedulable, int mostOnOneNode, int failedStarts,
      double meanStartWithoutPull, String load) {

    static Run parse(String line) {
      String[] f = line.split("\\|");
      return new Run(f[1].trim(), Integer.parseInt(f[2].trim()), Long.parseLong(f[3].trim()), Integer.parseInt(f[4].trim()),
          Double.parseDouble(f[5].trim()), Integer.parseInt(f[6].trim()), Integer.parseInt(f[7].trim()),
          Double.parseDouble(f[8].trim()), Double.parseDouble(f[9].trim()), Double.parseDouble(f[10].trim()),
          Double.parseDouble(f[11].trim()), Double.parseDouble(f[12].trim()), Integer.parseInt(f[13].trim()),
          Integer.parseInt(f[14].trim()), Integer.parseInt(f[15].trim()), Double.parseDouble(f[16].trim()), f[17].trim());
    }
  }

  /** Means over the seeds of one scorer at one node count. */
  record Mean(int seeds, double mb, double meanStart, double p50, double p95, double cvPods, double cvCpu,
      int unschedulable, int pulls, int gcRemovals, double meanStartWithoutPull) {

    static Mean of(List<Run> runs) {
      return new Mean(runs.size(), avg(runs, Run::mb), avg(runs, Run::meanStart), avg(runs, Run::p50),
          avg(runs, Run::p95), avg(runs, Run::cvPods), avg(runs, Run::cvCpu),
          runs.stream().mapToInt(Run::unschedulable).sum(), runs.stream().mapToInt(Run::pulls).sum(),
          runs.stream().mapToInt(Run::gcRemovals).sum(), avg(runs, Run::meanStartWithoutPull));
    }

    /** Over the runs that have the value (a run whose every start pulled has no mean without a pull). */
    private static double avg(List<Run> runs, java.util.function.ToDoubleFunction<Run> value) {
      return runs.stream().mapToDouble(value).filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
    }
  }

  static final String RUN_HEADER = """
      | scorer | nodes | seed | pods | MB pulled (registry log) | pulls | GC removals | start p50 s | start p95 s | start mean s | CV pods/node | CV CPU/node | unschedulable | most pods on a node | failed lifecycles | start mean s, no pull | load avg (1 min, before-after) |
      |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
      """;

  private ChainReport() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 3 && args.length != 4) {
      // A missing argument used to surface as an index error after the tables had been printed.
      System.err.println("usage: ChainReport RESULTS.tsv BURST.tsv PLOT.png [STARTS.tsv] (BURST.tsv may not exist: no burst section)");
      System.exit(2);
    }
    Locale.setDefault(Locale.ROOT);
    List<Run> runs = read(Path.of(args[0]));
    StringBuilder out = new StringBuilder(RUN_HEADER);
    Files.readAllLines(Path.of(args[0])).forEach(line -> out.append(line).append('\n'));
    out.append('\n').append(summary(runs));
    if (args.length == 4) {
      String steps = StartSteps.tables(Files.readAllLines(Path.of(args[3])).stream().map(StartSteps.Start::parse)
          .filter(Objects::nonNull).toList());
      if (!steps.isEmpty()) {
        out.append("\nWhere the starts' time went (ms, means over the starts):\n\n").append(steps);
      }
    }
    Path burst = Path.of(args[1]);
    if (Files.exists(burst)) {
      out.append("\nBurst:\n\n").append(RUN_HEADER);
      Files.readAllLines(burst).forEach(line -> out.append(line).append('\n'));
    }
    System.out.print(out);
    ChainPlot.write(runs, Path.of(args[2]));
  }

  static List<Run> read(Path file) throws IOException {
    return Files.readAllLines(file).stream().filter(line -> line.startsWith("|")).map(Run::parse).toList();
  }

  /** Means per node count and scorer against image-locality, then the targets. */
  static String summary(List<Run> runs) {
    StringBuilder out = new StringBuilder("""
        | nodes | scorer | seeds | MB pulled | vs image-locality | start mean s | vs image-locality | start mean s, no pull | vs image-locality | start p50 s | start p95 s | CV pods/node | CV CPU/node | pulls | GC removals | unschedulable |
        |---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
        """);
    StringBuilder targets = new StringBuilder("""

        | nodes | bytes ≤ 0.70 × image-locality | mean start ≤ 0.75 × image-locality | CV CPU ≤ image-locality + 0.01 | CV pods ≤ resources-only + 0.05 |
        |---:|---|---|---|---|
        """);
    for (int nodes : new TreeSet<>(runs.stream().map(Run::nodes).toList())) {
      Map<String, Mean> means = new TreeMap<>(runs.stream().filter(r -> r.nodes() == nodes)
          .collect(Collectors.groupingBy(Run::scorer, Collectors.collectingAndThen(Collectors.toList(), Mean::of))));
      Mean upstream = means.get("image-locality");
      means.forEach((scorer, m) -> out.append("| %d | %s | %d | %.1f | %s | %.2f | %s | %.2f | %s | %.2f | %.2f | %.3f | %.3f | %d | %d | %d |%n"
          .formatted(nodes, scorer, m.seeds(), m.mb(), ratio(m.mb(), upstream == null ? Double.NaN : upstream.mb()),
              m.meanStart(), ratio(m.meanStart(), upstream == null ? Double.NaN : upstream.meanStart()),
              m.meanStartWithoutPull(), ratio(m.meanStartWithoutPull(), upstream == null ? Double.NaN : upstream.meanStartWithoutPull()),
              m.p50(), m.p95(),
              m.cvPods(), m.cvCpu(), m.pulls(), m.gcRemovals(), m.unschedulable())));
      Mean layers = means.get("layer-locality");
      Mean resources = means.get("resources-only");
      if (layers != null && upstream != null && resources != null) {
        targets.append("| %d | %s | %s | %s | %s |%n".formatted(nodes,
            verdict(layers.mb() / upstream.mb(), 0.70, "%.2f×"),
            verdict(layers.meanStart() / upstream.meanStart(), 0.75, "%.2f×"),
            verdict(layers.cvCpu(), upstream.cvCpu() + 0.01, "%.3f"),
            verdict(layers.cvPods(), resources.cvPods() + 0.05, "%.3f")));
      }
    }
    return out.append(targets).toString();
  }

  private static String ratio(double value, double baseline) {
    return Double.isNaN(baseline) ? "" : "%+.1f%%".formatted(100 * (value / baseline - 1));
  }

  private static String verdict(double value, double limit, String format) {
    return (value <= limit ? "met: " : "**missed**: ") + format.formatted(value) + " (limit " + format.formatted(limit) + ")";
  }
}
