package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The candidate with the least requested CPU, the lowest index among equals; draws nothing from
 * the tie-breaking stream. Where a {@link FixedAssignment} replay sends the pods it cannot place.
 */
record LeastRequested() implements Placement {

  @Override
  public String name() {
    return "least-requested";
  }

  @Override
  public SimNode choose(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates,
      SplittableRandom ties) {
    // candidates keep the cluster's order, and min keeps the first of equals: the lowest index
    return candidates.stream().min(Comparator.comparingInt((SimNode node) -> node.cpuMillis)).orElseThrow();
  }
}
