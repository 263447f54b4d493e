package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import io.crigate.scheduler.LayerLocality;
import io.crigate.scheduler.PodLayers;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A greedy oracle, not a score a scheduler could run: it knows every node's layers exactly, at the
 * instant of the placement, and takes no advice from the resource scores. Among the candidates
 * whose requested CPU is within {@code slack} (a fraction of a node's allocatable CPU) of the least
 * requested candidate's, it picks the one missing the fewest bytes of the pod's layers; ties go to
 * the less requested node, then at random.
 *
 * <p>Slack 0 places by CPU alone; a slack of 1 or more ignores balance and follows the bytes
 * wherever the pod fits. Swept between the two, it traces how many bytes a placement that follows
 * layers can save at each level of balance, against which the layer score's point can be judged
 * (docs/scheduling-log.md, "What bytes are reachable on the chain's shape").
 */
record FewestMissingWithinSlack(double slack) implements Placement {

  FewestMissingWithinSlack {
    if (!(slack >= 0)) {
      throw new IllegalArgumentException("slack must be >= 0, got " + slack);
    }
  }

  @Override
  public String name() {
    return String.format(Locale.ROOT, "fewest-missing-within-%.2f", slack);
  }

  @Override
  public SimNode choose(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates,
      SplittableRandom ties) {
    double least = candidates.stream().mapToDouble(FewestMissingWithinSlack::requested).min().orElseThrow();
    PodLayers layers = PodLayers.of(List.of(image));
    SimNode best = null;
    long bestMissing = Long.MAX_VALUE;
    int tied = 0;
    for (SimNode node : candidates) {
      if (requested(node) > least + slack) {
        continue;
      }
      long missing = LayerLocality.missingBytes(layers, node);
      int order = best == null ? -1 : missing != bestMissing ? Long.compare(missing, bestMissing)
          : Double.compare(requested(node), requested(best));
      if (order < 0) {
        best = node;
        bestMissing = missing;
        tied = 1;
      } else if (order == 0 && ties.nextInt(++tied) == 0) {
        best = node;
      }
    }
    return best;
  }

  private static double requested(SimNode node) {
    return node.nodeLoad().utilizationWith(0);
  }
}
