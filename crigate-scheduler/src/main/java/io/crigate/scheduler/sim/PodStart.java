package io.crigate.scheduler.sim;

/**
 * How long a pod takes to start, and whether its node is held meanwhile.
 *
 * <p>A start takes {@code overheadSeconds} (sandbox, container, no pull) plus the bytes the node
 * pulled at {@code pullBytesPerSecond}. Under a kubelet a pod's requests count on its node from
 * binding, while its command's own time runs from the container's start: the pod holds its node
 * through the start too. The chain (scripts/experiment-layers.sh) does exactly that, so a scorer
 * whose pods pull more keeps more pods on its nodes at once. {@code holdsNodeThroughStart} models
 * it; without it a pod ends at its arrival plus its run time, as the simulator always did, and
 * the start is only reported.
 *
 * @param pullBytesPerSecond one node's pull rate, bytes per trace second
 * @param overheadSeconds trace seconds of every start, pull or not
 * @param holdsNodeThroughStart whether the pod's run time begins only after its start
 */
public record PodStart(double pullBytesPerSecond, double overheadSeconds, boolean holdsNodeThroughStart) {

  public PodStart {
    if (!(pullBytesPerSecond > 0) || !(overheadSeconds >= 0)) {
      throw new IllegalArgumentException("a pull rate above 0 and an overhead of at least 0 seconds, not %s and %s"
          .formatted(pullBytesPerSecond, overheadSeconds));
    }
  }

  /** The simulator's own model: starts take their pull, reported only; no overhead. */
  public static PodStart reportedOnly(double pullBytesPerSecond) {
    return new PodStart(pullBytesPerSecond, 0, false);
  }

  /** Trace seconds from the pod's placement until its container runs. */
  double seconds(long pulledBytes) {
    return overheadSeconds + pulledBytes / pullBytesPerSecond;
  }

  /** When the pod leaves its node. */
  double endsAt(PodArrival pod, long pulledBytes) {
    return pod.atSeconds() + (holdsNodeThroughStart ? seconds(pulledBytes) : 0) + pod.durationSeconds();
  }
}
