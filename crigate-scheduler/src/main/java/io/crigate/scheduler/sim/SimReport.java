package io.crigate.scheduler.sim;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** Renders results as CSV (one row per scorer and seed), a markdown table and an SVG bar chart. */
public final class SimReport {

  static final double GB = 1e9;

  private SimReport() {}

  public static String csv(List<SimResult> results) {
    StringBuilder out = new StringBuilder(
        "scorer,seed,pods,unschedulable,bytes_pulled,pulls,mean_start_s,p95_start_s,pods_per_node_cv,cpu_per_node_cv\n");
    for (SimResult r : results) {
      out.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%.3f,%.3f,%.4f,%.4f%n", r.scorer(), r.seed(), r.pods(),
          r.unschedulable(), r.bytesPulled(), r.pulls(), r.meanStartSeconds(), r.p95StartSeconds(),
          r.podsPerNodeCv(), r.cpuPerNodeCv()));
    }
    return out.toString();
  }

  /** Per scorer, averaged over seeds, with bytes relative to upstream ImageLocality. */
  public static String markdown(List<SimResult> results) {
    Map<String, List<SimResult>> byScorer = byScorer(results);
    double baseline = meanBytes(byScorer.getOrDefault("image-locality", List.of()));
    StringBuilder out = new StringBuilder(
        "| scorer | seeds | GB pulled | vs image-locality | pulls | mean start s | p95 start s | CV pods/node | CV CPU/node | unschedulable |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    byScorer.forEach((scorer, rs) -> out.append(String.format(Locale.ROOT,
        "| %s | %d | %.1f | %s | %.0f | %.2f | %.2f | %.3f | %.3f | %.1f |%n", scorer, rs.size(), meanBytes(rs) / GB,
        baseline == 0 ? "n/a" : String.format(Locale.ROOT, "%+.1f%%", 100 * (meanBytes(rs) / baseline - 1)),
        mean(rs, r -> r.pulls()), mean(rs, SimResult::meanStartSeconds), mean(rs, SimResult::p95StartSeconds),
        mean(rs, SimResult::podsPerNodeCv), mean(rs, SimResult::cpuPerNodeCv), mean(rs, r -> r.unschedulable()))));
    return out.toString();
  }

  /** Two panels of horizontal bars: GB pulled and CV of pods per node, per scorer (mean over seeds). */
  public static String svg(List<SimResult> results) {
    Map<String, List<SimResult>> byScorer = byScorer(results);
    int rowHeight = 28;
    int height = 60 + 2 * (byScorer.size() * rowHeight + 40);
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"%d\" font-family=\"sans-serif\" font-size=\"13\">%n"
            + "<text x=\"10\" y=\"22\" font-size=\"15\">Layer-aware scheduling, simulated (mean of %d seed(s))</text>%n",
        height, byScorer.values().iterator().next().size()));
    int y = 50;
    y = panel(out, y, rowHeight, "GB pulled", byScorer, rs -> meanBytes(rs) / GB, "%.1f");
    panel(out, y, rowHeight, "CV of pods per node (lower is more balanced)", byScorer,
        rs -> mean(rs, SimResult::podsPerNodeCv), "%.3f");
    return out.append("</svg>\n").toString();
  }

  private static int panel(StringBuilder out, int y, int rowHeight, String title,
      Map<String, List<SimResult>> byScorer, java.util.function.ToDoubleFunction<List<SimResult>> value,
      String format) {
    out.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>%n", y, title));
    double max = byScorer.values().stream().mapToDouble(value).max().orElse(1);
    y += 10;
    String[] colors = {"#9e9e9e", "#e07b39", "#3b7dd8"};
    int i = 0;
    for (var entry : byScorer.entrySet()) {
      double v = value.applyAsDouble(entry.getValue());
      int width = max == 0 ? 0 : (int) Math.round(380 * v / max);
      out.append(String.format(Locale.ROOT,
          "<text x=\"10\" y=\"%d\">%s</text><rect x=\"140\" y=\"%d\" width=\"%d\" height=\"18\" fill=\"%s\"/>"
              + "<text x=\"%d\" y=\"%d\">%s</text>%n",
          y + 14, entry.getKey(), y, width, colors[i++ % colors.length], 146 + width, y + 14,
          String.format(Locale.ROOT, format, v)));
      y += rowHeight;
    }
    return y + 30;
  }

  private static Map<String, List<SimResult>> byScorer(List<SimResult> results) {
    return results.stream().collect(Collectors.groupingBy(SimResult::scorer, TreeMap::new, Collectors.toList()));
  }

  private static double meanBytes(List<SimResult> rs) {
    return mean(rs, r -> r.bytesPulled());
  }

  private static double mean(List<SimResult> rs, java.util.function.ToDoubleFunction<SimResult> f) {
    return rs.stream().mapToDouble(f).average().orElse(0);
  }
}
