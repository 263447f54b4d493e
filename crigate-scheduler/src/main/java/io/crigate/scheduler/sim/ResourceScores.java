package io.crigate.scheduler.sim;

/**
 * kube-scheduler's default resource scores, each 0..100, computed with the incoming pod added:
 * NodeResourcesFit's LeastAllocated (CPU and memory weighted 1 each) and
 * NodeResourcesBalancedAllocation (1 minus the standard deviation of the two utilization fractions).
 */
public final class ResourceScores {

  static final long MAX_NODE_SCORE = 100;

  private ResourceScores() {}

  public static long leastAllocated(long requested, long capacity) {
    return capacity == 0 || requested > capacity ? 0 : (capacity - requested) * MAX_NODE_SCORE / capacity;
  }

  static long leastAllocated(SimNode node, PodArrival pod, NodeShape shape) {
    long cpu = leastAllocated(node.cpuMillis + pod.cpuMillis(), shape.cpuMillis());
    long memory = leastAllocated(node.memoryMib + pod.memoryMib(), shape.memoryMib());
    return (cpu + memory) / 2;
  }

  /** For two resources the standard deviation of the fractions is half their difference. */
  public static long balancedAllocation(double cpuFraction, double memoryFraction) {
    double std = Math.abs(Math.min(cpuFraction, 1) - Math.min(memoryFraction, 1)) / 2;
    return (long) ((1 - std) * MAX_NODE_SCORE);
  }

  static long balancedAllocation(SimNode node, PodArrival pod, NodeShape shape) {
    return balancedAllocation(
        (double) (node.cpuMillis + pod.cpuMillis()) / shape.cpuMillis(),
        (double) (node.memoryMib + pod.memoryMib()) / shape.memoryMib());
  }
}
