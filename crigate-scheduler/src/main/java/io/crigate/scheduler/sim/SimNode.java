package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.scheduler.NodeLoad;
import io.crigate.scheduler.NodeImageStatus;
import io.crigate.scheduler.NodeLayers;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * One simulated node: resource requests of running pods, and an image store that dedups layers by
 * digest (as containerd's content store does) and is garbage-collected like the kubelet does it:
 * above the high threshold, unused images are removed least recently used first down to the low one.
 *
 * <p>What the scores see of the store ({@link #holds}, {@link #imageStatus}) may lag behind it by a
 * publish delay: a real node shows a pulled image only after the pull has finished and it has
 * published, while the store here holds it from the placement on.
 */
final class SimNode implements NodeLayers {

  final String name;
  private final NodeShape shape;
  int cpuMillis;
  long memoryMib;
  int pods;
  private long diskBytes;
  private final Map<String, ImageLayers> images = new HashMap<>();
  private final Map<String, Double> lastUsed = new HashMap<>();
  private final Map<String, Integer> runningByImage = new HashMap<>();
  private final Map<String, Integer> imagesByLayer = new HashMap<>();
  private Map<String, Long> status;
  private final double publishDelaySeconds;
  /** When each pulled layer and image becomes visible to the scores; absent: visible. */
  private final Map<String, Double> shownAt = new HashMap<>();
  private double now;

  SimNode(String name, NodeShape shape) {
    this(name, shape, 0);
  }

  /** @param publishDelaySeconds trace seconds from a pull's start until the scores see what it brought */
  SimNode(String name, NodeShape shape, double publishDelaySeconds) {
    this.name = name;
    this.shape = shape;
    this.publishDelaySeconds = publishDelaySeconds;
  }

  /** The trace time the scores look at the node. */
  void at(double now) {
    this.now = now;
  }

  boolean fits(PodArrival pod) {
    return cpuMillis + pod.cpuMillis() <= shape.cpuMillis() && memoryMib + pod.memoryMib() <= shape.memoryMib();
  }

  /** Starts the pod, pulling what is missing; returns the bytes pulled. */
  long start(PodArrival pod, ImageLayers image, double now) {
    long pulled = images.containsKey(image.reference()) ? 0 : pull(image, now + publishDelaySeconds);
    lastUsed.put(image.reference(), now);
    runningByImage.merge(image.reference(), 1, Integer::sum);
    cpuMillis += pod.cpuMillis();
    memoryMib += pod.memoryMib();
    pods++;
    collectGarbage();
    return pulled;
  }

  void stop(PodArrival pod, double now) {
    lastUsed.put(pod.image(), now);
    runningByImage.merge(pod.image(), -1, Integer::sum);
    cpuMillis -= pod.cpuMillis();
    memoryMib -= pod.memoryMib();
    pods--;
  }

  /** Requests and count of the running pods against the node's CPU, as the layer score weighs them. */
  NodeLoad nodeLoad() {
    return new NodeLoad(cpuMillis, shape.cpuMillis(), pods);
  }

  @Override
  public boolean holds(String digest) {
    return imagesByLayer.containsKey(digest) && shown(digest);
  }

  private boolean shown(String key) {
    Double at = shownAt.get(key);
    return at == null || at <= now;
  }

  /** What upstream ImageLocality sees: node.status.images, the 50 largest. */
  Map<String, Long> imageStatus() {
    if (status == null) {
      Map<String, Long> sizes = new HashMap<>();
      images.values().forEach(i -> sizes.put(i.reference(), i.totalSize()));
      status = NodeImageStatus.largest(sizes, NodeImageStatus.DEFAULT_MAX_IMAGES);
    }
    if (shownAt.isEmpty()) {
      return status;
    }
    Map<String, Long> shownImages = new HashMap<>(status);
    shownImages.keySet().removeIf(ref -> !shown(ref));
    return shownImages;
  }

  long diskBytes() {
    return diskBytes;
  }

  private long pull(ImageLayers image, double shownFrom) {
    long pulled = 0;
    for (Layer layer : distinct(image)) {
      if (imagesByLayer.merge(layer.digest(), 1, Integer::sum) == 1) {
        pulled += layer.size();
        hideUntil(layer.digest(), shownFrom);
      }
    }
    hideUntil(image.reference(), shownFrom);
    diskBytes += pulled;
    images.put(image.reference(), image);
    status = null;
    return pulled;
  }

  private void collectGarbage() {
    if (diskBytes * 100 <= shape.imageDiskBytes() * shape.gcHighPercent()) {
      return;
    }
    List<String> unused = images.keySet().stream()
        .filter(ref -> runningByImage.getOrDefault(ref, 0) == 0)
        .sorted(Comparator.comparing((String ref) -> lastUsed.get(ref)).thenComparing(ref -> ref))
        .toList();
    for (String ref : unused) {
      if (diskBytes * 100 <= shape.imageDiskBytes() * shape.gcLowPercent()) {
        break;
      }
      remove(images.remove(ref));
    }
    status = null;
  }

  private void remove(ImageLayers image) {
    for (Layer layer : distinct(image)) {
      if (imagesByLayer.merge(layer.digest(), -1, Integer::sum) == 0) {
        imagesByLayer.remove(layer.digest());
        shownAt.remove(layer.digest());
        diskBytes -= layer.size();
      }
    }
    lastUsed.remove(image.reference());
    shownAt.remove(image.reference());
  }

  private void hideUntil(String key, double shownFrom) {
    if (publishDelaySeconds > 0) {
      shownAt.put(key, shownFrom);
    }
  }

  private static Iterable<Layer> distinct(ImageLayers image) {
    return new LinkedHashSet<>(image.layers());
  }
}
