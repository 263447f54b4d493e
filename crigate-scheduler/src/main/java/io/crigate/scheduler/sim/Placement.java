package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** How the simulator picks a node for a pod among those its requests fit. */
public sealed interface Placement permits ScoredPlacement, FewestMissingWithinSlack, WeightedLoadBlind,
    FixedAssignment, RecordedPlacement, LeastRequested, PricedBalance {

  /** Names the placement in results (a scorer's name, or the oracle with its slack). */
  String name();

  /**
   * @param cluster every node, for scores that count holders across the cluster
   * @param candidates the nodes that fit the pod, never empty
   * @return one of the candidates
   */
  SimNode choose(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates,
      SplittableRandom ties);

  /** kube-scheduler's default profile with the named image scorer ({@link Experiment#ALL_SCORERS}). */
  static Placement scored(String scorer, NodeShape shape) {
    return new ScoredPlacement(ImageScorer.named(scorer), shape);
  }

  /** The layer score without its load bands, at {@code weight}: see {@link WeightedLoadBlind}. */
  static Placement loadBlindLayers(double weight, NodeShape shape) {
    return new WeightedLoadBlind(weight, shape);
  }

  /** The layer score with balance priced, not banded: see {@link PricedBalance}. */
  static Placement pricedBalance(double bytesPerCv, double podsShare, NodeShape shape) {
    return new PricedBalance(bytesPerCv, podsShare, shape);
  }

  /** The greedy oracle: see {@link FewestMissingWithinSlack}. */
  static Placement fewestMissingWithinSlack(double slack) {
    return new FewestMissingWithinSlack(slack);
  }

  /** Each pod on the node index {@code nodeByPod} gives it: see {@link FixedAssignment}. */
  static Placement fixed(String name, Map<String, Integer> nodeByPod) {
    return new FixedAssignment(name, nodeByPod, new LeastRequested());
  }
}
