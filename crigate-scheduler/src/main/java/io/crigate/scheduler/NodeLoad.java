package io.crigate.scheduler;

/**
 * A node's load as kube-scheduler's resource scores see it: the CPU requests of the pods bound to
 * it (not yet the pod being scheduled), its allocatable CPU, and how many pods those are. What
 * {@link LayerLocality} weighs a pull against.
 *
 * @param pods the pods bound to the node and not ended, whatever they request
 */
public record NodeLoad(long requestedMillis, long allocatableMillis, int pods) {

  /** For a node whose requests or allocatable are not known (yet); {@link LayerLocality} then ignores its load. */
  public static final NodeLoad UNKNOWN = new NodeLoad(0, 0, 0);

  public boolean known() {
    return allocatableMillis > 0;
  }

  double utilization() {
    return (double) requestedMillis / allocatableMillis;
  }

  /** The fraction of allocatable CPU requested once the pod is added. */
  public double utilizationWith(long podMillis) {
    return (double) (requestedMillis + podMillis) / allocatableMillis;
  }

  /**
   * The fraction of allocatable CPU the node's pods, the new one included, would request if each
   * requested {@code millisPerPod}: its pod count as a CPU utilization.
   */
  double podsAsUtilizationWith(double millisPerPod) {
    return (pods + 1) * millisPerPod / allocatableMillis;
  }
}
