package io.crigate.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Where the whole chain's start latency went, from the experiment's per-start rows
 * ({@code --starts}): waiting for the node's pull in progress (a node pulls one image at a time, as
 * the kubelet does), the start's own pull, and the rest (create and start). Also how many
 * pulls were in flight on the machine during each pull: every node of the experiment pulls from
 * the same registry onto the same disk with the same two cores, so a pull slows with each other
 * node's, which a real cluster's nodes would not share.
 */
final class StartSteps {

  /** One started pod as a row of starts.tsv gives it. */
  record Start(String scorer, int nodes, long seed, boolean pulled, double startMs, long beganEpochMs, double waitedMs,
      double pullingMs) {

    /** Null for a row from before the steps were recorded (seven columns). */
    static Start parse(String line) {
      String[] f = line.split("\t");
      if (f.length < 11) {
        return null;
      }
      return new Start(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), Boolean.parseBoolean(f[5]),
          Double.parseDouble(f[6]), Long.parseLong(f[8]), Double.parseDouble(f[9]), Double.parseDouble(f[10]));
    }

    double pullBegins() {
      return beganEpochMs + waitedMs;
    }

    double pullEnds() {
      return pullBegins() + pullingMs;
    }

    String run() {
      return scorer + "/" + nodes + "/" + seed;
    }
  }

  private StartSteps() {}

  /** The pulls in flight during {@code pull}, itself included, averaged over its duration. */
  static double pullsInFlight(Start pull, List<Start> pullsOfItsRun) {
    double from = pull.pullBegins();
    double to = pull.pullEnds();
    if (to <= from) {
      return 1;
    }
    double overlap = 0;
    for (Start other : pullsOfItsRun) {
      overlap += Math.max(0, Math.min(to, other.pullEnds()) - Math.max(from, other.pullBegins()));
    }
    return overlap / (to - from);
  }

  /** The two tables, or an empty string when no row has the steps. */
  static String tables(List<Start> starts) {
    if (starts.isEmpty()) {
      return "";
    }
    Map<String, List<Start>> pullsByRun = starts.stream().filter(Start::pulled)
        .collect(Collectors.groupingBy(Start::run));
    StringBuilder steps = new StringBuilder("""
        | nodes | scorer | starts | start mean ms | of it: waiting for the node's pull | its own pull | create and start | pulls | ms a pull | pulls in flight during a pull |
        |---:|---|---:|---:|---:|---:|---:|---:|---:|---:|
        """);
    Map<Integer, List<Double>> pullMsByInFlight = new TreeMap<>();
    Map<String, List<Start>> byScorer = new TreeMap<>(starts.stream()
        .collect(Collectors.groupingBy(s -> "%05d %s".formatted(s.nodes(), s.scorer()))));
    byScorer.forEach((key, group) -> {
      List<Start> pulls = group.stream().filter(Start::pulled).toList();
      List<Double> inFlight = new ArrayList<>();
      for (Start pull : pulls) {
        double n = pullsInFlight(pull, pullsByRun.get(pull.run()));
        inFlight.add(n);
        pullMsByInFlight.computeIfAbsent((int) Math.round(n), k -> new ArrayList<>()).add(pull.pullingMs());
      }
      double start = mean(group.stream().map(Start::startMs).toList());
      double waited = mean(group.stream().map(Start::waitedMs).toList());
      double pulling = mean(group.stream().map(Start::pullingMs).toList());
      steps.append("| %d | %s | %d | %.0f | %.0f | %.0f | %.0f | %d | %.0f | %.2f |%n".formatted(group.getFirst().nodes(),
          group.getFirst().scorer(), group.size(), start, waited, pulling, start - waited - pulling, pulls.size(),
          mean(pulls.stream().map(Start::pullingMs).toList()), mean(inFlight)));
    });
    StringBuilder sharing = new StringBuilder("""

        | pulls in flight on the machine (time-averaged, rounded) | pulls | median ms a pull |
        |---:|---:|---:|
        """);
    pullMsByInFlight.forEach((n, ms) -> sharing.append("| %d | %d | %.0f |%n".formatted(n, ms.size(), median(ms))));
    return steps.append(sharing).toString();
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted(Comparator.naturalOrder()).toList();
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }
}
