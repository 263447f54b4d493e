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

  SimNode(String name, NodeShape shape) {
    this.name = name;
    this.shape = shape;
  }

  boolean fits(PodArrival pod) {
    return cpuMillis + pod.cpuMillis() <= shape.cpuMillis() && memoryMib + pod.memoryMib() <= shape.memoryMib();
  }

  /** Starts the pod, pulling what is missing; returns the bytes pulled. */
  long start(PodArrival pod, ImageLayers image, double now) {
    long pulled = images.containsKey(image.reference()) ? 0 : pull(image);
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
    return imagesByLayer.containsKey(digest);
  }

  /** What upstream ImageLocality sees: node.status.images, the 50 largest. */
  Map<String, Long> imageStatus() {
    if (status == null) {
      Map<String, Long> sizes = new HashMap<>();
      images.values().forEach(i -> sizes.put(i.reference(), i.totalSize()));
      status = NodeImageStatus.largest(sizes, NodeImageStatus.DEFAULT_MAX_IMAGES);
    }
    return status;
  }

  long diskBytes() {
    return diskBytes;
  }

  private long pull(ImageLayers image) {
    long pulled = 0;
    for (Layer layer : distinct(image)) {
      if (imagesByLayer.merge(layer.digest(), 1, Integer::sum) == 1) {
        pulled += layer.size();
      }
    }
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
        diskBytes -= layer.size();
      }
    }
    lastUsed.remove(image.reference());
  }

  private static Iterable<Layer> distinct(ImageLayers image) {
    return new LinkedHashSet<>(image.layers());
  }
}
