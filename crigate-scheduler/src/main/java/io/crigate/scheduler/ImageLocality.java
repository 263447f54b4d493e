package io.crigate.scheduler;

import java.util.List;
import java.util.Map;

/**
 * The upstream kube-scheduler {@code ImageLocality} score, reproduced exactly so that it can serve as
 * the baseline: it sees whole images only, and only those the node status lists (the 50 largest).
 *
 * <p>Per node: {@code sum} over init and regular containers whose image the node lists of
 * {@code size x nodesWithImage / allNodes}, clamped to {@code [23 MiB, 1000 MiB x nContainers]} and
 * mapped linearly to {@code 0..100}.
 */
public final class ImageLocality {

  public static final String NAME = "ImageLocality";
  public static final long MAX_NODE_SCORE = 100;
  static final long MIB = 1024L * 1024L;
  /** Below this many (spread-scaled) bytes an image is considered cheap to pull: score 0. */
  public static final long MIN_THRESHOLD_BYTES = 23 * MIB;
  /** Per container; above {@code nContainers} times this the score saturates at 100. */
  public static final long MAX_CONTAINER_THRESHOLD_BYTES = 1000 * MIB;

  private ImageLocality() {}

  /**
   * Scores one node.
   *
   * @param podImages image names of init and regular containers, in pod order, duplicates kept
   * @param nodeImages what the node status lists: normalized image name to size in bytes
   * @param nodesWithImage per normalized image name, how many nodes list it
   * @param totalNodes all nodes in the cluster snapshot
   */
  public static long score(
      List<String> podImages,
      Map<String, Long> nodeImages,
      Map<String, Integer> nodesWithImage,
      int totalNodes) {
    long sum = 0;
    for (String image : podImages) {
      String name = normalizedImageName(image);
      Long size = nodeImages.get(name);
      if (size != null) {
        sum += scaledImageScore(size, nodesWithImage.getOrDefault(name, 0), totalNodes);
      }
    }
    return calculatePriority(sum, podImages.size());
  }

  /** Image size scaled by the fraction of nodes holding it, so one node does not attract every pod. */
  static long scaledImageScore(long imageSizeBytes, int nodesWithImage, int totalNodes) {
    double spread = (double) nodesWithImage / totalNodes;
    return (long) (imageSizeBytes * spread);
  }

  /** Clamps the summed bytes to the thresholds and maps them linearly to {@code 0..MAX_NODE_SCORE}. */
  static long calculatePriority(long sumScores, int numContainers) {
    long maxThreshold = MAX_CONTAINER_THRESHOLD_BYTES * numContainers;
    long clamped = Math.max(MIN_THRESHOLD_BYTES, Math.min(sumScores, maxThreshold));
    return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD_BYTES) / (maxThreshold - MIN_THRESHOLD_BYTES);
  }

  /** Adds {@code :latest} when a name has neither tag nor digest, as node status names always carry one. */
  public static String normalizedImageName(String name) {
    return name.lastIndexOf(':') <= name.lastIndexOf('/') ? name + ":latest" : name;
  }
}
