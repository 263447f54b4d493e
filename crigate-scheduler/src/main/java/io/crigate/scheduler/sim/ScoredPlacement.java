package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import java.util.List;
import java.util.SplittableRandom;

/**
 * kube-scheduler's default profile: image score + LeastAllocated + BalancedAllocation, weight 1
 * each; the highest total wins, random among ties.
 */
record ScoredPlacement(ImageScorer scorer, NodeShape shape) implements Placement {

  @Override
  public String name() {
    return scorer.name();
  }

  @Override
  public SimNode choose(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates,
      SplittableRandom ties) {
    long[] imageScores = scorer.scores(pod, image, cluster, candidates);
    long[] scores = new long[candidates.size()];
    for (int i = 0; i < scores.length; i++) {
      SimNode node = candidates.get(i);
      scores[i] = imageScores[i]
          + ResourceScores.leastAllocated(node, pod, shape)
          + ResourceScores.balancedAllocation(node, pod, shape);
    }
    return candidates.get(HighestScore.index(scores, ties));
  }
}
