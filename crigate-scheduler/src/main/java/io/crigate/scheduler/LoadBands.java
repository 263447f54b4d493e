package io.crigate.scheduler;

/**
 * How much busier than the others a node may end up, with the pod, and still be where the pod
 * could go instead: the two load bands of {@link LayerLocality}, derived from the candidates' mean
 * CPU utilization before the pod.
 *
 * <pre>
 *   aboveMean = 0.22 x mean      c' is an alternative when u(c') <= mean + aboveMean
 *   aboveNode = 0.05 x mean      ... or when u(c') <= u(c) + aboveNode
 * </pre>
 *
 * <p>Why a fraction of the mean, not of a node: the balance the bands protect is judged by the
 * coefficient of variation of requested CPU (and of pods) per node, a spread relative to the mean.
 * A node that ends up {@code d} above the mean adds {@code d / mean} to that relative spread, so the
 * same relative band costs the same balance at every load, node size and pod mix, where a fixed
 * fraction of a node is too loose in a lightly loaded cluster and too tight in a busy one. The
 * pod's own request still counts, inside {@code u}: a pod that is a large part of a node (a small
 * node, or a large pod) needs a holder further below the mean.
 *
 * <p>The node count does not enter. Scaling the bands so that a node at the band's edge costs the
 * same CV at every node count (the band then grows as {@code N / sqrt(N - 1)}) was measured and
 * dropped: it spent more than the balance target at 60 nodes and saved nothing at 5
 * (docs/scheduling.md, "Load bands").
 *
 * <p>The fractions are the bands tuned earlier on the simulator's default trace (0.11 and 0.03 of a
 * node at its mean utilization of 0.62, i.e. 0.18 and 0.05 of the mean), with the mean band then
 * widened to 0.22, which bought bytes at equal CPU balance on the default trace and on both held-out
 * seed sets.
 */
public record LoadBands(double aboveMean, double aboveNode) {

  /** The mean band as a fraction of the mean utilization. */
  static final double MEAN_FRACTION = 0.22;
  /** The neighbour band as a fraction of the mean utilization. */
  static final double NODE_FRACTION = 0.05;

  /** @param meanUtilization the candidates' mean requested CPU over allocatable, before the pod */
  public static LoadBands around(double meanUtilization) {
    if (!(meanUtilization >= 0)) {
      throw new IllegalArgumentException("mean utilization must be >= 0, got " + meanUtilization);
    }
    return new LoadBands(MEAN_FRACTION * meanUtilization, NODE_FRACTION * meanUtilization);
  }
}
