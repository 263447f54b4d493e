package io.crigate.scheduler;

/**
 * A node's CPU as kube-scheduler's resource scores see it: the requests of the pods bound to it
 * (not yet the pod being scheduled) and its allocatable CPU. What {@link LayerLocality} weighs a
 * pull against.
 */
public record CpuLoad(long requestedMillis, long allocatableMillis) {

  /** For a node whose requests or allocatable are not known (yet); {@link LayerLocality} then ignores its load. */
  public static final CpuLoad UNKNOWN = new CpuLoad(0, 0);

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
}
