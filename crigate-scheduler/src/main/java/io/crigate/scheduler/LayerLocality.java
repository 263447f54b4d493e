package io.crigate.scheduler;

import io.crigate.images.Layer;
import java.util.List;

/**
 * Layer-aware locality: prefers the candidate nodes that would pull the fewest bytes for a pod,
 * counting layers rather than whole images, so a node with the pod's base and runtime layers is
 * preferred even when it never ran the pod's image.
 *
 * <pre>
 *   missing(c) = sum of size(l) over the pod's layers l that candidate c does not hold
 *   extra(c)   = missing(c) - min over candidates of missing
 *   score(c)   = 10 - min(2, round(extra(c) / 50 MB))                      in 8..10
 * </pre>
 *
 * <p>Only {@code extra} can be saved by choosing a node: bytes every candidate lacks are pulled
 * wherever the pod goes, so they must not separate nodes. The scale is absolute, not a fraction of
 * the pod's size, because a pull costs by its bytes: 40 MB weigh the same in a 100 MB image as in a
 * 1 GB one. The scale
 * turns bytes into kube-scheduler points: one extender point (10 points at weight 1) per 50 MB, so
 * an application's code layer (a few MB) never outweighs resource balance. The cap bounds what any
 * pull can cost to 20 points, about what two or three average pods move the resource scores by: a
 * node that holds a pod's layers wins only while it is nearly as free as the best node, so the pods
 * of a freshly pulled image cannot pile onto the one node that has it. That bound replaces
 * upstream's spread factor (nodes holding the image / all nodes), which also prevents the pile-up
 * but discounts exactly the layers that only one or two nodes hold, where locality saves the most.
 * The constants were chosen on the simulator's seeds 1-5; see docs/scheduling.md.
 */
public final class LayerLocality {

  public static final String NAME = "LayerLocality";
  /** kube-scheduler's {@code MaxExtenderPriority}; it multiplies by weight and by 100/10. */
  public static final long MAX_EXTENDER_PRIORITY = 10;
  /** Extra bytes to pull that cost one extender point. */
  static final long BYTES_PER_POINT = 50_000_000L;
  /** The most points a pull can cost, however large. */
  static final long MAX_PENALTY = 2;

  private LayerLocality() {}

  /**
   * Scores each candidate against the others.
   *
   * @param heldByCandidate per candidate, aligned with the pod's layers: whether it holds each
   * @return one score per candidate, in order
   */
  public static long[] scores(PodLayers pod, List<boolean[]> heldByCandidate) {
    long[] missing = new long[heldByCandidate.size()];
    long fewest = Long.MAX_VALUE;
    for (int c = 0; c < missing.length; c++) {
      missing[c] = missingBytes(pod, heldByCandidate.get(c));
      fewest = Math.min(fewest, missing[c]);
    }
    long[] scores = new long[missing.length];
    for (int c = 0; c < scores.length; c++) {
      scores[c] = priority(missing[c] - fewest);
    }
    return scores;
  }

  /** Which of the pod's layers the node holds: what {@link #scores} needs from each candidate. */
  public static boolean[] held(PodLayers pod, NodeLayers node) {
    List<Layer> layers = pod.layers();
    boolean[] held = new boolean[layers.size()];
    for (int i = 0; i < held.length; i++) {
      held[i] = node.holds(layers.get(i).digest());
    }
    return held;
  }

  static long missingBytes(PodLayers pod, boolean[] held) {
    List<Layer> layers = pod.layers();
    long missing = 0;
    for (int i = 0; i < held.length; i++) {
      if (!held[i]) {
        missing += layers.get(i).size();
      }
    }
    return missing;
  }

  /** Maps the bytes a node would pull beyond the best candidate to {@code 8..10}, rounding half up. */
  static long priority(long extraBytes) {
    long penalty = Math.min(MAX_PENALTY, (extraBytes + BYTES_PER_POINT / 2) / BYTES_PER_POINT);
    return MAX_EXTENDER_PRIORITY - penalty;
  }
}
