package io.crigate.bench;

import io.crigate.images.Layer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The kubelet's image garbage collection as the experiment runs it on each node: when the image
 * store uses more than {@code highPercent} of its capacity, images no container uses (and not
 * pinned, like the sandbox image) are removed least recently used first until usage is below
 * {@code lowPercent}. Usage is the size of the distinct layers the node holds, so removing an image
 * frees only the layers no remaining image shares; the same model as the simulator's node.
 */
record KubeletImageGc(long capacityBytes, int highPercent, int lowPercent) {

  /** An image in the node's store, with its layers. */
  record StoredImage(String reference, List<Layer> layers) {}

  /**
   * @param lastUsed per reference, when a container last used it (any monotonic clock); missing is oldest
   * @param keep references not to remove: used by a container, or pinned
   * @return the references to remove, in removal order; empty below the high threshold
   */
  List<String> toRemove(List<StoredImage> images, Set<String> keep, Map<String, Long> lastUsed) {
    Map<String, Integer> holders = new HashMap<>();
    Map<String, Long> sizes = new HashMap<>();
    for (StoredImage image : images) {
      for (Layer layer : new LinkedHashSet<>(image.layers())) {
        holders.merge(layer.digest(), 1, Integer::sum);
        sizes.put(layer.digest(), layer.size());
      }
    }
    long usage = sizes.values().stream().mapToLong(Long::longValue).sum();
    List<String> removed = new ArrayList<>();
    if (usage * 100 <= capacityBytes * highPercent) {
      return removed;
    }
    List<StoredImage> candidates = images.stream().filter(image -> !keep.contains(image.reference()))
        .sorted(Comparator.comparing((StoredImage image) -> lastUsed.getOrDefault(image.reference(), Long.MIN_VALUE))
            .thenComparing(StoredImage::reference))
        .toList();
    for (StoredImage image : candidates) {
      if (usage * 100 <= capacityBytes * lowPercent) {
        break;
      }
      for (Layer layer : new LinkedHashSet<>(image.layers())) {
        if (holders.merge(layer.digest(), -1, Integer::sum) == 0) {
          usage -= layer.size();
        }
      }
      removed.add(image.reference());
    }
    return removed;
  }
}
