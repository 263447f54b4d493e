package io.crigate.scheduler;

import io.crigate.images.Layer;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Load-aware layer locality: prefers the candidate nodes that would pull the fewest bytes for a
 * pod, counting layers rather than whole images, but only where following the layers does not
 * send the pod to a more loaded node.
 *
 * <pre>
 *   missing(c)   = sum of size(l) over the pod's layers l that candidate c does not hold
 *   u(c)         = (CPU requested on c + the pod's CPU request) / allocatable CPU of c
 *   mean         = mean over candidates of (CPU requested / allocatable), before the pod
 *   c' is an alternative to c  when  u(c') <= mean + 0.11  or  u(c') <= u(c) + 0.03
 *   extra(c)     = missing(c) - min over c and its alternatives c' of missing(c')
 *   score(c)     = 10 - min(5, round(extra(c) / 20 MB))                         in 5..10
 * </pre>
 *
 * <p>A node loses points only for the bytes it would pull beyond an <em>alternative</em>: another
 * candidate that could take the pod without unbalancing the cluster, because it would stay near
 * the candidates' mean load, or because it is hardly more loaded than the node itself. The
 * locality preference therefore never pulls a pod onto a node that is clearly more loaded than the
 * alternatives: the free nodes are simply not charged for the busy node's layers, all score alike
 * and kube-scheduler's resource scores decide. Sending the pod to a busier node costs balance in
 * proportion to how far above the others it is; the pod's own request counts in {@code u}, so a
 * large pod needs a less loaded holder than a small one. When every candidate misses the same
 * bytes every candidate scores 10: the score never prefers a node for its load alone.
 *
 * <p>Only bytes beyond an alternative can be saved, so bytes every candidate lacks do not separate
 * nodes. The scale is absolute, not a fraction of the pod's size, because a pull costs by its
 * bytes. 20 MB per extender point (10 kube-scheduler points at weight 1) leaves an application's
 * code layer (a few MB) at no preference and makes its dependency layer (tens of MB) worth a few
 * points; the cap of 5 points (50 kube-scheduler points) is what lets a holder at the mean load
 * beat a node that is a few pods emptier. Without the load condition these constants would
 * concentrate pods hard; the alternatives are what keeps balance.
 *
 * <p>CPU alone measures load: it is the resource whose balance across nodes suffered from the
 * load-blind score; in the simulator, the larger of the CPU and memory fractions did no better, and
 * their mean much worse. A candidate whose load
 * is {@linkplain CpuLoad#known() unknown} is scored load-blind: every candidate is its alternative,
 * and it is an alternative to every candidate; with no load known at all this is the load-blind
 * score with the same constants. The mean counts the candidates with known load. The constants
 * were chosen on the simulator's seeds 1-5; see docs/scheduling.md.
 */
public final class LayerLocality {

  public static final String NAME = "LayerLocality";
  /** kube-scheduler's {@code MaxExtenderPriority}; it multiplies by weight and by 100/10. */
  public static final long MAX_EXTENDER_PRIORITY = 10;
  /** Extra bytes to pull that cost one extender point. */
  static final long BYTES_PER_POINT = 20_000_000L;
  /** The most points a pull can cost, however large. */
  static final long MAX_PENALTY = 5;
  /** How far above the candidates' mean utilization an alternative may end up with the pod. */
  static final double MEAN_BAND = 0.11;
  /** How much more utilized than the charged node itself an alternative may be. */
  static final double NEIGHBOUR_BAND = 0.03;

  private LayerLocality() {}

  /**
   * Scores each candidate against its alternatives.
   *
   * @param heldByCandidate per candidate, aligned with the pod's layers: whether it holds each
   * @param podCpuMillis the CPU the pod requests, as kube-scheduler counts it
   * @param loads per candidate, in the same order; {@link CpuLoad#UNKNOWN} where not known
   * @return one score per candidate, in order
   */
  public static long[] scores(PodLayers pod, List<boolean[]> heldByCandidate, long podCpuMillis, List<CpuLoad> loads) {
    int n = heldByCandidate.size();
    if (loads.size() != n) {
      throw new IllegalArgumentException("%d candidates but %d loads".formatted(n, loads.size()));
    }
    long[] missing = new long[n];
    for (int c = 0; c < n; c++) {
      missing[c] = missingBytes(pod, heldByCandidate.get(c));
    }
    double[] after = new double[n];
    double meanBefore = 0;
    int[] known = IntStream.range(0, n).filter(c -> loads.get(c).known()).toArray();
    for (int c : known) {
      after[c] = loads.get(c).utilizationWith(podCpuMillis);
      meanBefore += loads.get(c).utilization() / known.length;
    }
    long fewest = Long.MAX_VALUE;
    long fewestNearMean = Long.MAX_VALUE;
    for (int c = 0; c < n; c++) {
      fewest = Math.min(fewest, missing[c]);
      if (!loads.get(c).known() || after[c] <= meanBefore + MEAN_BAND) {
        fewestNearMean = Math.min(fewestNearMean, missing[c]);
      }
    }
    // known candidates by utilization with the pod, and the fewest missing bytes among the first i + 1
    int[] byLoad = Arrays.stream(known).boxed().sorted(Comparator.comparingDouble(c -> after[c]))
        .mapToInt(Integer::intValue).toArray();
    double[] sortedLoads = new double[byLoad.length];
    long[] fewestUpTo = new long[byLoad.length];
    for (int i = 0; i < byLoad.length; i++) {
      sortedLoads[i] = after[byLoad[i]];
      fewestUpTo[i] = Math.min(missing[byLoad[i]], i == 0 ? Long.MAX_VALUE : fewestUpTo[i - 1]);
    }
    long[] scores = new long[n];
    for (int c = 0; c < n; c++) {
      long best = fewest;
      if (loads.get(c).known()) {
        int last = lastAtMost(sortedLoads, after[c] + NEIGHBOUR_BAND);
        best = Math.min(fewestNearMean, fewestUpTo[last]);
      }
      scores[c] = priority(missing[c] - best);
    }
    return scores;
  }

  /** Index of the last value {@code <= limit} in ascending {@code sorted}; the caller's own value guarantees one. */
  private static int lastAtMost(double[] sorted, double limit) {
    int low = 0;
    int high = sorted.length - 1;
    while (low < high) {
      int mid = (low + high + 1) >>> 1;
      if (sorted[mid] <= limit) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return low;
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

  /** Maps the bytes a node would pull beyond its best alternative to {@code 5..10}, rounding half up. */
  static long priority(long extraBytes) {
    long penalty = Math.min(MAX_PENALTY, (extraBytes + BYTES_PER_POINT / 2) / BYTES_PER_POINT);
    return MAX_EXTENDER_PRIORITY - penalty;
  }
}
