package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Not a scheduler: replays an assignment chosen offline ({@link HindsightSearch}), pod name to node
 * index (the index into the simulation's cluster, node {@code i} named {@code node-%02d}). A pod
 * whose node does not fit it at its arrival, or that the assignment does not name, goes to the
 * least requested candidate (requested CPU, then the lowest index), so any assignment runs to the
 * end and a replay never draws from the tie-breaking stream.
 */
record FixedAssignment(String name, Map<String, Integer> nodeByPod) implements Placement {

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
    // candidates keep the cluster's order, and min keeps the first of equals: the lowest index
    return candidates.stream().min(Comparator.comparingInt((SimNode node) -> node.cpuMillis)).orElseThrow();
  }
}
