package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import io.crigate.scheduler.ImageLocality;
import io.crigate.scheduler.LayerLocality;
import io.crigate.scheduler.PodLayers;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The layer score with balance priced rather than banded, as an extender could compute it: each
 * candidate costs the bytes it would pull plus {@code bytesPerCv} times the coefficient of variation
 * of requested CPU across the cluster with the pod on it, and {@code podsShare} of that price times
 * the same coefficient for pods; the
 * cheapest candidate loses nothing and the others lose points for what they cost beyond it, on
 * {@link LayerLocality}'s scale, beside kube-scheduler's resource scores. The coefficients after
 * each candidate come from the cluster's sums in constant time, so the score stays linear in the
 * candidates.
 */
record PricedBalance(double bytesPerCv, double podsShare, NodeShape shape) implements Placement {

  PricedBalance {
    if (!(bytesPerCv >= 0) || !(podsShare >= 0)) {
      throw new IllegalArgumentException("need bytesPerCv and podsShare >= 0, got %s, %s".formatted(bytesPerCv, podsShare));
    }
  }

  @Override
  public String name() {
    return String.format(Locale.ROOT, "priced-balance-%.2fGB-pods-%.2f", bytesPerCv / 1e9, podsShare);
  }

  @Override
  public SimNode choose(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates,
      SplittableRandom ties) {
    PodLayers layers = PodLayers.of(List.of(image));
    Sums cpu = new Sums();
    Sums pods = new Sums();
    for (SimNode node : cluster) {
      cpu.add(node.cpuMillis);
      pods.add(node.pods);
    }
    double[] cost = new double[candidates.size()];
    double least = Double.POSITIVE_INFINITY;
    for (int i = 0; i < cost.length; i++) {
      SimNode node = candidates.get(i);
      cost[i] = LayerLocality.missingBytes(layers, node) + bytesPerCv
          * (cpu.cvWith(node.cpuMillis, pod.cpuMillis()) + podsShare * pods.cvWith(node.pods, 1));
      least = Math.min(least, cost[i]);
    }
    long[] extra = new long[cost.length];
    for (int i = 0; i < extra.length; i++) {
      extra[i] = Math.round(cost[i] - least);
    }
    long[] points = LayerLocality.pointsForExtraBytes(extra, pod.cpuMillis());
    long[] scores = new long[cost.length];
    for (int i = 0; i < scores.length; i++) {
      SimNode node = candidates.get(i);
      scores[i] = points[i] * (ImageLocality.MAX_NODE_SCORE / LayerLocality.MAX_EXTENDER_PRIORITY)
          + ResourceScores.leastAllocated(node, pod, shape) + ResourceScores.balancedAllocation(node, pod, shape);
    }
    return candidates.get(HighestScore.index(scores, ties));
  }

  /** Sum and sum of squares of a per-node quantity, for its CV after adding to one node. */
  private static final class Sums {
    private int count;
    private double sum;
    private double squares;

    void add(double value) {
      count++;
      sum += value;
      squares += value * value;
    }

    double cvWith(double value, double added) {
      double total = sum + added;
      if (total == 0) {
        return 0;
      }
      double mean = total / count;
      double after = squares - value * value + (value + added) * (value + added);
      return Math.sqrt(Math.max(0, after / count - mean * mean)) / mean;
    }
  }
}
