package io.crigate.scheduler.sim;

/**
 * Capacity of every simulated node and the kubelet image GC thresholds.
 *
 * @param imageDiskBytes disk available to images (the kubelet's imagefs)
 * @param gcHighPercent kubelet {@code imageGCHighThresholdPercent}: GC starts above this usage
 * @param gcLowPercent kubelet {@code imageGCLowThresholdPercent}: GC frees down to this usage
 */
public record NodeShape(int cpuMillis, long memoryMib, long imageDiskBytes, int gcHighPercent, int gcLowPercent) {

  /** 8 cores, 32 GiB, 20 GB for images, kubelet's default 85/80 thresholds. */
  public static final NodeShape DEFAULT = new NodeShape(8000, 32 * 1024, 20_000_000_000L, 85, 80);

  public NodeShape {
    if (gcLowPercent > gcHighPercent || gcHighPercent > 100 || gcLowPercent < 0) {
      throw new IllegalArgumentException(
          "need 0 <= gc low (%d) <= gc high (%d) <= 100".formatted(gcLowPercent, gcHighPercent));
    }
  }
}
