package io.crigate.scheduler;

import io.crigate.images.Layer;
import java.util.Arrays;
import java.util.List;

/**
 * Load-aware layer locality: prefers the candidate nodes that would pull the fewest bytes for a
 * pod, counting layers rather than whole images, but only where following the layers does not
 * send the pod to a more loaded node.
 *
 * <pre>
 *   missing(c)   = sum of size(l) over the pod's layers l that candidate c does not hold
 *   per pod      = CPU requested over candidates / pods running on them   (the mean request of a pod)
 *   u(c)         = max((CPU requested on c + the pod's CPU request) / allocatable CPU of c,
 *                      0.5 x (pods on c + 1) x per pod / allocatable CPU of c)
 *   mean         = mean over candidates of (CPU requested / allocatable), before the pod
 *   c' is an alternative to c  when  u(c') <= mean + 0.22 x mean  or  u(c') <= u(c) + 0.05 x mean
 *   extra(c)     = missing(c) - min over c and its alternatives c' of missing(c')
 *   cores        = the pod's CPU request in cores, clamped to 0.5..2
 *   score(c)     = 10 - min(5, round(extra(c) / cores / 20 MB))                 in 5..10
 * </pre>
 *
 * <p>A node loses points only for the bytes it would pull beyond an <em>alternative</em>: another
 * candidate that could take the pod without unbalancing the cluster, because it would stay near
 * the candidates' mean load, or because it is hardly more loaded than the node itself. The
 * locality preference therefore never pulls a pod onto a node that is clearly more loaded than the
 * alternatives ({@link LoadBands}: both bands are fractions of the mean load, since balance is
 * judged relative to it): the free nodes are simply not charged for the busy node's layers, all score alike
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
 * <p>Bytes count more for small pods and less for large ones ({@code / cores}): following its
 * layers, a pod unbalances the cluster by what it requests, so a 100 m pod may go out of its way
 * for a few MB where a 2-core pod should rather land on the emptiest node. The clamp keeps the
 * factor within 2x either way; a pod that requests nothing counts as half a core. In the simulator
 * this moved the whole trade-off, not just a point on it: fewer bytes at a better balance of CPU
 * and of pods per node (docs/scheduling.md).
 *
 * <p>CPU measures load: it is the resource whose balance across nodes suffered from the
 * load-blind score; in the simulator, the larger of the CPU and memory fractions did no better, and
 * their mean much worse. The pod count enters only where it is out of line with the CPU by more
 * than a factor of two ({@link #POD_REQUEST_FLOOR}): small pods follow their layers most (their
 * bytes count double) and each adds little CPU, so a holder could collect many of them while its
 * CPU stays within the bands, and the pods per node would spread further than the resource
 * scores alone spread them. A node whose pods, with this one, request on average less than half
 * the candidates' mean request per pod is judged as if each requested that half. Counting every
 * pod at the full mean (the larger of the CPU and pod-count loads) kept pods per node even on
 * the whole chain's shape but gave up bytes on the simulator's default trace where pods were
 * never out of line (docs/scheduling-log.md, "Pods per node in the load"). A candidate whose load
 * is {@linkplain NodeLoad#known() unknown} is scored load-blind: every candidate is its alternative,
 * and it is an alternative to every candidate; with no load known at all this is the load-blind
 * score with the same constants. The mean counts the candidates with known load. The byte constants
 * were chosen on the simulator's seeds 1-5, the bands as {@link LoadBands} says; see
 * docs/scheduling.md.
 */
public final class LayerLocality {

  public static final String NAME = "LayerLocality";
  /** kube-scheduler's {@code MaxExtenderPriority}; it multiplies by weight and by 100/10. */
  public static final long MAX_EXTENDER_PRIORITY = 10;
  /** Extra bytes to pull that cost one extender point. */
  static final long BYTES_PER_POINT = 20_000_000L;
  /** The most points a pull can cost, however large. */
  static final long MAX_PENALTY = 5;
  /** The range of the pod's CPU request, in cores, that its extra bytes are divided by. */
  static final double MIN_CORES = 0.5;
  static final double MAX_CORES = 2;
  /**
   * A node counts as at least as loaded as if each of its pods (the pod being placed included)
   * requested this fraction of the candidates' mean CPU request per pod. Half: the pods then count
   * only on a node whose pods request less than half the mean on average, out of line with its CPU
   * by a factor of two. Chosen, not derived; measured on the chain's shape and the simulator
   * (docs/scheduling-log.md, "Pods per node in the load"): 0.4 no longer keeps the pods per node
   * within the chain's limit at 10 nodes, 0.8 loses the default trace's bytes; 0.5 to 0.7 keep
   * both.
   */
  static final double POD_REQUEST_FLOOR = 0.5;

  private LayerLocality() {}

  /**
   * Scores each candidate against its alternatives.
   *
   * @param missing per candidate, the bytes of the pod's layers it does not hold ({@link #missingBytes})
   * @param podCpuMillis the CPU the pod requests, as kube-scheduler counts it
   * @param loads per candidate, in the same order; {@link NodeLoad#UNKNOWN} where not known
   * @return one score per candidate, in order
   */
  public static long[] scores(long[] missing, long podCpuMillis, List<NodeLoad> loads) {
    return scores(missing, podCpuMillis, loads, new Scratch());
  }

  /**
   * {@link #scores(long[], long, List)} working in {@code scratch}'s arrays, for a caller that scores
   * thousands of candidates per call and keeps a scratch between calls (the extender): the returned
   * array is the scratch's own, valid until its next use.
   */
  public static long[] scores(long[] missing, long podCpuMillis, List<NodeLoad> loads, Scratch scratch) {
    int n = missing.length;
    if (loads.size() != n) {
      throw new IllegalArgumentException("%d candidates but %d loads".formatted(n, loads.size()));
    }
    scratch.size(n);
    double[] after = scratch.after;
    double meanBefore = 0;
    long knownCount = 0;
    long requestedMillis = 0;
    long pods = 0;
    for (int c = 0; c < n; c++) {
      NodeLoad load = loads.get(c);
      if (load.known()) {
        knownCount++;
        requestedMillis += load.requestedMillis();
        pods += load.pods();
      }
    }
    double millisPerPod = pods == 0 ? 0 : (double) requestedMillis / pods;
    for (int c = 0; c < n; c++) {
      if (loads.get(c).known()) {
        after[c] = loadWith(loads.get(c), podCpuMillis, millisPerPod);
        meanBefore += loads.get(c).utilization() / knownCount;
      }
    }
    LoadBands bands = LoadBands.around(meanBefore);
    long fewest = Long.MAX_VALUE;
    long fewestNearMean = Long.MAX_VALUE;
    for (int c = 0; c < n; c++) {
      fewest = Math.min(fewest, missing[c]);
      if (!loads.get(c).known() || after[c] <= meanBefore + bands.aboveMean()) {
        fewestNearMean = Math.min(fewestNearMean, missing[c]);
      }
    }
    double cores = cores(podCpuMillis);
    Alternatives alternatives = scratch.alternatives.of(missing, after, loads);
    long[] scores = scratch.scores;
    for (int c = 0; c < n; c++) {
      long best = fewest;
      if (loads.get(c).known()) {
        best = Math.min(fewestNearMean, alternatives.fewestMissingAtMost(after[c] + bands.aboveNode()));
      }
      scores[c] = priority(Math.round((missing[c] - best) / cores));
    }
    return scores;
  }

  /**
   * The per-candidate arrays one scoring works in (a few doubles and longs per candidate), kept by
   * a caller that scores often: at 5,000 candidates they are ~200 KB a call, whose garbage drove
   * the extender's young collections. Not shared between threads.
   */
  public static final class Scratch {
    private double[] after = new double[0];
    private long[] scores = new long[0];
    private final Alternatives alternatives = new Alternatives();

    /** The score answers in {@code scores}, so its length is exactly the candidates'. */
    private void size(int candidates) {
      if (scores.length != candidates) {
        scores = new long[candidates];
      }
      if (after.length < candidates) {
        after = new double[candidates];
        alternatives.distinctMissing = new long[candidates];
        alternatives.leastUtilizationUpTo = new double[candidates];
      }
    }
  }

  /**
   * Answers "the fewest missing bytes among known candidates at most this utilized" in a binary
   * search per candidate, with no per-candidate scan of the others: a pod has few layers, so its
   * candidates miss only a few distinct byte counts. Per distinct count (ascending) it keeps the
   * least utilization that misses it; the running minimum of those never rises, so the first count
   * whose running minimum is within the limit is the answer.
   */
  private static final class Alternatives {
    private long[] distinctMissing = new long[0];
    private double[] leastUtilizationUpTo = new double[0];
    private int count;

    Alternatives of(long[] missing, double[] after, List<NodeLoad> loads) {
      long[] distinct = distinctMissing;
      int known = 0;
      for (int c = 0; c < missing.length; c++) {
        if (loads.get(c).known()) {
          distinct[known++] = missing[c];
        }
      }
      Arrays.sort(distinct, 0, known);
      count = 0;
      for (int k = 0; k < known; k++) {
        if (count == 0 || distinct[count - 1] != distinct[k]) {
          distinct[count++] = distinct[k];
        }
      }
      double[] least = leastUtilizationUpTo;
      Arrays.fill(least, 0, count, Double.POSITIVE_INFINITY);
      for (int c = 0; c < missing.length; c++) {
        if (loads.get(c).known()) {
          int k = Arrays.binarySearch(distinct, 0, count, missing[c]);
          least[k] = Math.min(least[k], after[c]);
        }
      }
      for (int k = 1; k < count; k++) {
        least[k] = Math.min(least[k], least[k - 1]);
      }
      return this;
    }

    /** The caller's own candidate is within its limit, so there is always an answer. */
    long fewestMissingAtMost(double utilization) {
      int low = 0;
      int high = count - 1;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (leastUtilizationUpTo[mid] <= utilization) {
          high = mid;
        } else {
          low = mid + 1;
        }
      }
      return distinctMissing[low];
    }
  }

  /**
   * u(c): the node's CPU utilization with the pod, or, where its pods request less than
   * {@link #POD_REQUEST_FLOOR} of {@code millisPerPod} on average, its pod count at that request.
   */
  static double loadWith(NodeLoad load, long podCpuMillis, double millisPerPod) {
    return Math.max(load.utilizationWith(podCpuMillis), POD_REQUEST_FLOOR * load.podsAsUtilizationWith(millisPerPod));
  }

  /**
   * The points of candidates that would pull {@code extraBytes} more than where the pod could go
   * instead, on this score's scale: for placements that decide the alternative otherwise (the
   * simulator's experiments).
   */
  public static long[] pointsForExtraBytes(long[] extraBytes, long podCpuMillis) {
    double cores = cores(podCpuMillis);
    long[] points = new long[extraBytes.length];
    for (int c = 0; c < points.length; c++) {
      points[c] = priority(Math.round(extraBytes[c] / cores));
    }
    return points;
  }

  private static double cores(long podCpuMillis) {
    return Math.clamp(podCpuMillis / 1000.0, MIN_CORES, MAX_CORES);
  }

  /** The bytes of the pod's layers that the node does not hold. */
  public static long missingBytes(PodLayers pod, NodeLayers node) {
    long missing = 0;
    for (Layer layer : pod.layers()) {
      if (!node.holds(layer.digest())) {
        missing += layer.size();
      }
    }
    return missing;
  }

  /** Maps the (request-weighted) bytes a node would pull beyond its best alternative to {@code 5..10}, rounding half up. */
  static long priority(long extraBytes) {
    long penalty = Math.min(MAX_PENALTY, (extraBytes + BYTES_PER_POINT / 2) / BYTES_PER_POINT);
    return MAX_EXTENDER_PRIORITY - penalty;
  }
}
