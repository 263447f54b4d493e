package io.crigate.scheduler.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An online counterpart of {@link LookaheadSearch} at a lookahead of 2: it does not see the next
 * arrival, it expects it. Each pod goes to the node that minimizes the expected {@link SearchObjective}
 * after one more pod, whose image is drawn from the images that arrived so far in proportion to how
 * often they did, with their mean requests, placed on its best node. Knowing which image comes next
 * is thereby replaced by knowing how often each has come: if the lookahead's bytes came from the
 * popularity of images, this placement would reach them too. Durations do not enter (the expected
 * pod arrives at once). Exhaustive over nodes and images, so for small clusters only.
 *
 * @param knowsPopularity draw the expected pod from the whole trace's frequencies instead of the
 *     past's: the most an online scheduler could know of traces whose arrivals are independent
 *     draws, as the generator's are (it would learn them over a long enough past)
 */
public record ExpectedNextArrival(Simulation simulation, boolean knowsPopularity) {

  /** Names the expected pod in the runs; a trace's own pods are named otherwise. */
  static final String EXPECTED_POD = "expected-next~";

  /** What has arrived of one image: how many pods and their summed requests. */
  private static final class Seen {
    int pods;
    long cpuMillis;
    long memoryMib;

    PodArrival expectedAfter(PodArrival pod, String image) {
      return new PodArrival(pod.atSeconds(), EXPECTED_POD, image, (int) (cpuMillis / pods), memoryMib / pods,
          LookaheadSearch.UNKNOWN_DURATION_SECONDS);
    }
  }

  /** @return the whole trace run with every pod where it was placed */
  public HindsightSearch.Found search(String name, long seed, List<PodArrival> trace, ImageCatalog catalog,
      SearchObjective objective) {
    Map<String, Integer> placed = new HashMap<>();
    Map<String, Seen> seen = new LinkedHashMap<>();
    if (knowsPopularity) {
      trace.forEach(pod -> count(seen, pod));
    }
    for (int i = 0; i < trace.size(); i++) {
      PodArrival pod = trace.get(i);
      if (!knowsPopularity) {
        count(seen, pod);
      }
      int counted = knowsPopularity ? trace.size() : i + 1;
      List<PodArrival> known = trace.subList(0, i + 1);
      double leastCost = Double.POSITIVE_INFINITY;
      int chosen = -1;
      for (int node = 0; node < simulation.nodes(); node++) {
        Map<String, Integer> withPod = new HashMap<>(placed);
        withPod.put(pod.pod(), node);
        if (!fits(name, seed, known, catalog, withPod, pod.pod(), node)) {
          continue;
        }
        double cost = 0;
        for (Map.Entry<String, Seen> next : seen.entrySet()) {
          double share = (double) next.getValue().pods / counted;
          cost += share * bestNext(name, seed, known, catalog, withPod, next.getValue().expectedAfter(pod, next.getKey()),
              objective);
        }
        if (cost < leastCost) {
          leastCost = cost;
          chosen = node;
        }
      }
      if (chosen >= 0) {
        placed.put(pod.pod(), chosen);
      }
    }
    SimResult result = simulation.run(Placement.fixed(name, placed), seed, trace, catalog, done -> {});
    return new HindsightSearch.Found(result, objective.value(result), Map.copyOf(placed));
  }

  private static void count(Map<String, Seen> seen, PodArrival pod) {
    Seen image = seen.computeIfAbsent(pod.image(), k -> new Seen());
    image.pods++;
    image.cpuMillis += pod.cpuMillis();
    image.memoryMib += pod.memoryMib();
  }

  /** Whether the pod, with the earlier ones where they went, can start on {@code node}. */
  private boolean fits(String name, long seed, List<PodArrival> known, ImageCatalog catalog,
      Map<String, Integer> assignment, String pod, int node) {
    RecordedPlacement recorded = new RecordedPlacement(Placement.fixed(name, assignment));
    simulation.run(recorded, seed, known, catalog, done -> {});
    return Integer.valueOf(node).equals(recorded.assignment().get(pod));
  }

  /** The objective with the expected pod on the node where it comes out least. */
  private double bestNext(String name, long seed, List<PodArrival> known, ImageCatalog catalog,
      Map<String, Integer> assignment, PodArrival next, SearchObjective objective) {
    List<PodArrival> window = new ArrayList<>(known);
    window.add(next);
    double least = Double.POSITIVE_INFINITY;
    for (int node = 0; node < simulation.nodes(); node++) {
      Map<String, Integer> withNext = new HashMap<>(assignment);
      withNext.put(EXPECTED_POD, node);
      least = Math.min(least, objective.value(simulation.run(Placement.fixed(name, withNext), seed, window, catalog,
          done -> {})));
    }
    return least;
  }
}
