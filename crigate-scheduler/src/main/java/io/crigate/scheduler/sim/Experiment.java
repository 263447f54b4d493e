package io.crigate.scheduler.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Runs every scorer on the same trace, per seed, so the comparison is paired: same catalog, same
 * arrivals, same tie-breaking stream.
 */
public record Experiment(Simulation simulation, int apps, List<String> scorers) {

  public static final List<String> ALL_SCORERS = ImageScorer.ALL.stream().map(ImageScorer::name).toList();

  public Experiment {
    scorers.forEach(ImageScorer::named);
    scorers = List.copyOf(scorers);
  }

  /** Receives each run's size before it starts, then its progress. */
  public interface Progress {
    IntConsumer start(String task, int pods);
  }

  public List<SimResult> generated(List<Long> seeds, TraceParameters params, Progress progress) {
    List<SimResult> results = new ArrayList<>();
    for (long seed : seeds) {
      ImageCatalog catalog = ImageCatalog.generate(seed, apps);
      results.addAll(onTrace(seed, catalog, TraceGenerator.generate(seed, params, catalog), progress));
    }
    return results;
  }

  public List<SimResult> onTrace(long seed, ImageCatalog catalog, List<PodArrival> trace, Progress progress) {
    trace.forEach(pod -> catalog.image(pod.image()));
    List<SimResult> results = new ArrayList<>();
    for (String scorer : scorers) {
      IntConsumer step = progress.start("%s seed %d".formatted(scorer, seed), trace.size());
      results.add(simulation.run(scorer, seed, trace, catalog, step));
    }
    return results;
  }
}
