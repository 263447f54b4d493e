package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import io.crigate.scheduler.NodeLoad;
import io.crigate.scheduler.ImageLocality;
import io.crigate.scheduler.LayerLocality;
import io.crigate.scheduler.PodLayers;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The other way to trade bytes for balance, for comparison with the load bands: the layer score
 * without them ({@link LayerLocality} with every load unknown, so each candidate is charged for
 * the bytes it misses beyond the best candidate), at a {@code weight} beside kube-scheduler's
 * resource scores instead of 1. Weight 0 is resources-only; the larger the weight, the more the
 * bytes outweigh the resource scores' spreading.
 */
record WeightedLoadBlind(double weight, NodeShape shape) implements Placement {

  WeightedLoadBlind {
    if (!(weight >= 0)) {
      throw new IllegalArgumentException("weight must be >= 0, got " + weight);
    }
  }

  @Override
  public String name() {
    return String.format(Locale.ROOT, "load-blind-layers-weight-%.2f", weight);
  }

  @Override
  public SimNode choose(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates,
      SplittableRandom ties) {
    PodLayers layers = PodLayers.of(List.of(image));
    long[] layerScores = LayerLocality.scores(
        candidates.stream().mapToLong(node -> LayerLocality.missingBytes(layers, node)).toArray(),
        pod.cpuMillis(), Collections.nCopies(candidates.size(), NodeLoad.UNKNOWN));
    long[] scores = new long[candidates.size()];
    for (int i = 0; i < scores.length; i++) {
      SimNode node = candidates.get(i);
      scores[i] = Math.round(weight * layerScores[i] * (ImageLocality.MAX_NODE_SCORE / LayerLocality.MAX_EXTENDER_PRIORITY))
          + ResourceScores.leastAllocated(node, pod, shape)
          + ResourceScores.balancedAllocation(node, pod, shape);
    }
    return candidates.get(HighestScore.index(scores, ties));
  }
}
