package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Not a scheduler: replays an assignment chosen offline ({@link HindsightSearch}) or committed so far
 * ({@link LookaheadSearch}), pod name to node index (the index into the simulation's cluster, node
 * {@code i} named {@code node-%02d}). A pod whose node does not fit it at its arrival, or that the
 * assignment does not name, is placed by {@code otherwise}: for a replay the least requested
 * candidate ({@link LeastRequested}), so any assignment runs to the end and never draws from the
 * tie-breaking stream; for a lookahead window the online score, which places the pods not yet decided.
 */
record FixedAssignment(String name, Map<String, Integer> nodeByPod, Placement otherwise) implements Placement {

  FixedAssignment {
    nodeByPod = Map.copyOf(nodeByPod);
  }

  @Override
  public SimNode choose(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates,
      SplittableRandom ties) {
    Integer index = nodeByPod.get(pod.pod());
    if (index != null && candidates.contains(cluster.get(index))) {
      return cluster.get(index);
    }
    return otherwise.choose(pod, image, cluster, candidates, ties);
  }
}
