package io.crigate.scheduler.sim;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * An offline search for the placement of one trace with the least {@link SearchObjective}. It sees
 * every arrival before placing any, which no scheduler can, so what it finds is what hindsight
 * reaches; not proven optimal, only the best it met. Simulated annealing over assignments
 * ({@link AssignmentMoves}), each one run through {@link Simulation#run} as a {@link FixedAssignment},
 * so capacity, fallbacks, image GC, unschedulable pods and the time-averaged CVs are measured exactly
 * as for every other placement. It starts from the runs of the given placements (recorded by
 * {@link RecordedPlacement}), so it never returns worse than the best of them.
 *
 * @param evaluations simulated runs per search, the starts' runs included
 * @param restarts annealing runs sharing the budget equally; the first begin at the starts, in
 *     order, the others at the best found so far
 * @param randomSeed with the trace's seed, fixes every draw: equal inputs give equal results
 */
public record HindsightSearch(Simulation simulation, int evaluations, int restarts, long randomSeed) {

  /** Objective units: with bytes as a fraction of a baseline's pull, 0.02 is about one app image. */
  static final double FIRST_TEMPERATURE = 0.02;
  static final double LAST_TEMPERATURE = 0.0005;

  public HindsightSearch {
    if (evaluations < 0 || restarts < 1) {
      throw new IllegalArgumentException("need evaluations >= 0 and restarts >= 1, got %d, %d"
          .formatted(evaluations, restarts));
    }
  }

  /**
   * @param result the best run, named {@code name}
   * @param objective its {@link SearchObjective#value}
   * @param assignment node index per placed pod, for {@link Placement#fixed}
   */
  public record Found(SimResult result, double objective, Map<String, Integer> assignment) {}

  private record Candidate(int[] nodes, SimResult result, double objective, boolean admitted) {

    /** An admitted result beats any other; among equals in that, the lower objective. */
    boolean betterThan(Candidate other) {
      if (other == null) {
        return true;
      }
      return admitted != other.admitted ? admitted : objective < other.objective;
    }
  }

  public Found search(String name, long seed, List<PodArrival> trace, ImageCatalog catalog, List<Placement> starts,
      SearchObjective objective) {
    return search(name, seed, trace, catalog, starts, objective, 0);
  }

  /**
   * As {@link #search(String, long, List, ImageCatalog, List, SearchObjective)}, with the pods before
   * trace position {@code firstFree} left where the starts put them: the search moves only the others.
   */
  Found search(String name, long seed, List<PodArrival> trace, ImageCatalog catalog, List<Placement> starts,
      SearchObjective objective, int firstFree) {
    if (starts.isEmpty()) {
      throw new IllegalArgumentException("the search needs at least one placement to start from");
    }
    String[] pods = trace.stream().map(PodArrival::pod).toArray(String[]::new);
    if (Set.of(pods).size() != pods.length) {
      throw new IllegalArgumentException("pod names in the trace must be unique: the assignment is keyed by them");
    }
    Run run = new Run(simulation, name, seed, trace, catalog, pods, objective);
    List<Candidate> begun = starts.stream().map(run::evaluate).toList();
    Candidate best = null;
    for (Candidate start : begun) {
      best = start.betterThan(best) ? start : best;
    }
    AssignmentMoves moves = new AssignmentMoves(trace, simulation.nodes(), firstFree);
    SplittableRandom random = new SplittableRandom(randomSeed ^ seed);
    int steps = Math.max(0, evaluations - starts.size()) / restarts;
    for (int restart = 0; restart < restarts && steps > 0; restart++) {
      Candidate current = restart < begun.size() ? begun.get(restart) : best;
      for (int step = 0; step < steps; step++) {
        double temperature = FIRST_TEMPERATURE * Math.pow(LAST_TEMPERATURE / FIRST_TEMPERATURE, (double) step / steps);
        Candidate next = run.evaluate(moves.neighbour(current.nodes(), random));
        double worse = next.objective() - current.objective();
        if (worse <= 0 || random.nextDouble() < Math.exp(-worse / temperature)) {
          current = next;
        }
        best = next.betterThan(best) ? next : best;
      }
    }
    // replayed under its own name; the replay of a recorded assignment is the same run
    Map<String, Integer> assignment = run.assignment(best.nodes());
    SimResult result = simulation.run(Placement.fixed(name, assignment), seed, trace, catalog, done -> {});
    return new Found(result, objective.value(result), assignment);
  }

  /** One search's fixed inputs, to evaluate assignments against. */
  private record Run(Simulation simulation, String name, long seed, List<PodArrival> trace, ImageCatalog catalog,
      String[] pods, SearchObjective objective) {

    Candidate evaluate(int[] nodes) {
      return evaluate(Placement.fixed(name, assignment(nodes)));
    }

    /** Runs the placement and keeps where its pods actually went, fallbacks included. */
    Candidate evaluate(Placement placement) {
      RecordedPlacement recorded = new RecordedPlacement(placement);
      SimResult result = simulation.run(recorded, seed, trace, catalog, done -> {});
      Map<String, Integer> chosen = recorded.assignment();
      int[] nodes = new int[pods.length];
      for (int i = 0; i < pods.length; i++) {
        nodes[i] = chosen.getOrDefault(pods[i], -1);
      }
      return new Candidate(nodes, result, objective.value(result), objective.admits(result));
    }

    Map<String, Integer> assignment(int[] nodes) {
      Map<String, Integer> assignment = new HashMap<>();
      for (int i = 0; i < nodes.length; i++) {
        if (nodes[i] >= 0) {
          assignment.put(pods[i], nodes[i]);
        }
      }
      return assignment;
    }
  }
}
