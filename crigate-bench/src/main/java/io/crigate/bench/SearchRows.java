package io.crigate.bench;

import io.crigate.scheduler.sim.ImageCatalog;
import io.crigate.scheduler.sim.PodArrival;
import io.crigate.scheduler.sim.SearchObjective;
import io.crigate.scheduler.sim.SimResult;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link ChainBound}'s rows for a placement search ({@code HindsightSearch}, {@code LookaheadSearch}):
 * for each pair of prices on the two balance CVs, every seed's trace searched. The targets hold on
 * means over seeds, so one pair of prices serves all seeds (the Lagrangian of the mean) and each pair
 * is a row of its own; bytes are priced in image-locality's mean pull, so a price of 1 trades 0.01
 * of CV for 1% of those bytes. A row may leave no more pods unschedulable than image-locality did on
 * the same seed.
 *
 * @param prefix names the rows: {@code <prefix>-cpu-<price>-pods-<price>}
 */
record SearchRows(String prefix, Search search, List<Double> cpuPrices, List<Double> podsPrices) {

  /** One search of one seed's trace. */
  @FunctionalInterface
  interface Search {
    SimResult run(String name, long seed, List<PodArrival> trace, ImageCatalog catalog, SearchObjective objective);
  }

  /** Per row name, one result per seed in {@code traces}' order. */
  Map<String, List<SimResult>> run(List<List<PodArrival>> traces, ImageCatalog catalog, List<SimResult> imageLocality) {
    double meanBytes = imageLocality.stream().mapToDouble(SimResult::bytesPulled).average().orElseThrow();
    Map<String, List<SimResult>> rows = new LinkedHashMap<>();
    for (double cpuPrice : cpuPrices) {
      for (double podsPrice : podsPrices) {
        String name = "%s-cpu-%s-pods-%s".formatted(prefix, plain(cpuPrice), plain(podsPrice));
        for (int i = 0; i < traces.size(); i++) {
          SimResult baseline = imageLocality.get(i);
          SearchObjective objective = new SearchObjective(1 / meanBytes, cpuPrice, podsPrice, baseline.unschedulable());
          rows.computeIfAbsent(name, n -> new ArrayList<>())
              .add(search.run(name, baseline.seed(), traces.get(i), catalog, objective));
        }
      }
    }
    return rows;
  }

  private static String plain(double price) {
    return BigDecimal.valueOf(price).stripTrailingZeros().toPlainString();
  }
}
