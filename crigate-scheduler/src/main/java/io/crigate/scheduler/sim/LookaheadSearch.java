package io.crigate.scheduler.sim;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Between an online score and {@link HindsightSearch}: a scheduler that, when a pod arrives, also
 * sees the next {@code lookahead - 1} arrivals (their images, requests and durations) and how long
 * the running pods have left, and nothing after them. For each pod in turn it searches the
 * placements of the pods it knows, the earlier ones fixed where it put them and the online
 * placement as the start, then commits only the pod at hand. Sweeping {@code lookahead} measures
 * how much of the future a placement needs to pull a given number of bytes: at 1 it knows nothing
 * a scheduler does not (the durations of running pods do not enter a run that ends at the
 * arrival), at the trace's length it sees what the offline search sees.
 *
 * <p>Each window's objective is the run of the known arrivals only, so a pod's load counts in the
 * balance only at the arrivals it overlaps inside the window: the prices that keep the final run
 * within the balance limits differ with {@code lookahead} and are swept with it.
 *
 * @param durationsKnown whether the search knows how long each pod runs; without, a pod still
 *     running at the arrival at hand, and every pod after it, runs to the end of the window (what has
 *     already ended, a scheduler knows)
 * @param evaluationsPerPod simulated runs per window search, the start's included
 */
public record LookaheadSearch(Simulation simulation, int lookahead, boolean durationsKnown, int evaluationsPerPod,
    long randomSeed) {

  /** Long past any trace's end: a pod that runs this long never ends inside a window. */
  static final double UNKNOWN_DURATION_SECONDS = 1e12;

  public LookaheadSearch {
    if (lookahead < 1 || evaluationsPerPod < 1) {
      throw new IllegalArgumentException("need lookahead >= 1 and evaluationsPerPod >= 1, got %d, %d"
          .formatted(lookahead, evaluationsPerPod));
    }
  }

  /**
   * @param online places the pods a window has not decided yet, before the search moves them
   * @return the whole trace run with every pod where it was committed
   */
  public HindsightSearch.Found search(String name, long seed, List<PodArrival> trace, ImageCatalog catalog,
      Placement online, SearchObjective objective) {
    HindsightSearch window = new HindsightSearch(simulation, evaluationsPerPod, 1, randomSeed);
    Map<String, Integer> committed = new HashMap<>();
    for (int pod = 0; pod < trace.size(); pod++) {
      List<PodArrival> known = trace.subList(0, Math.min(trace.size(), pod + lookahead));
      if (!durationsKnown) {
        known = withEndsUnknown(known, trace.get(pod).atSeconds());
      }
      Placement start = new FixedAssignment(name, committed, online);
      Integer node = window.search(name, seed, known, catalog, List.of(start), objective, pod)
          .assignment().get(trace.get(pod).pod());
      if (node != null) {
        committed.put(trace.get(pod).pod(), node);
      }
    }
    SimResult result = simulation.run(Placement.fixed(name, committed), seed, trace, catalog, done -> {});
    return new HindsightSearch.Found(result, objective.value(result), Map.copyOf(committed));
  }

  /** The window as a scheduler without durations sees it at {@code now}: only the pods that have ended end. */
  private static List<PodArrival> withEndsUnknown(List<PodArrival> window, double now) {
    return window.stream()
        .map(p -> p.atSeconds() + p.durationSeconds() <= now ? p
            : new PodArrival(p.atSeconds(), p.pod(), p.image(), p.cpuMillis(), p.memoryMib(), UNKNOWN_DURATION_SECONDS))
        .toList();
  }
}
