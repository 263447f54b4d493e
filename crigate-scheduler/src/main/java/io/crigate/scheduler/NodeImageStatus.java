package io.crigate.scheduler;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the kubelet reports in {@code node.status.images}: the largest images first, truncated to
 * {@code --node-status-max-images} (default 50). Upstream {@link ImageLocality} sees only this list.
 */
public final class NodeImageStatus {

  /** Kubelet's default {@code --node-status-max-images}. */
  public static final int DEFAULT_MAX_IMAGES = 50;

  private NodeImageStatus() {}

  /** Keeps the {@code maxImages} largest images, ties broken by name so runs are reproducible. */
  public static Map<String, Long> largest(Map<String, Long> imageSizes, int maxImages) {
    Map<String, Long> listed = new LinkedHashMap<>();
    imageSizes.entrySet().stream()
        .sorted(
            Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                .thenComparing(Map.Entry.comparingByKey()))
        .limit(maxImages)
        .forEach(e -> listed.put(e.getKey(), e.getValue()));
    return listed;
  }
}
