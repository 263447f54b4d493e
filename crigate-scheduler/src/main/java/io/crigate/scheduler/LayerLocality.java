package io.crigate.scheduler;

import io.crigate.images.Layer;
import java.util.List;

/**
 * Layer-aware locality: prefers nodes that already hold (or are pulling) the bytes a pod needs,
 * counting layers rather than whole images, so a node with the pod's base and runtime layers scores
 * even when it never ran the pod's image.
 *
 * <pre>
 *   score(node) = floor( 10 x  sum_{l in pod, node holds l} size(l) x k(l)/N
 *                             / sum_{l in pod} size(l) )
 * </pre>
 *
 * where the pod's layers are the distinct layers of its init and regular containers, k(l) is the
 * number of nodes holding l and N the number of nodes. The spread factor k(l)/N is upstream's, applied
 * per layer: a layer that only one node holds is worth little, so the pods of a freshly pulled image
 * do not all pile onto that node; once a layer is common, its bytes count in full. The result is
 * relative to the pod's own size (not to a fixed 1000 MiB per container), so small images score too,
 * and it lands on the extender's 0..{@value #MAX_EXTENDER_PRIORITY} scale.
 */
public final class LayerLocality {

  public static final String NAME = "LayerLocality";
  /** kube-scheduler's {@code MaxExtenderPriority}; it multiplies by weight and by 100/10. */
  public static final long MAX_EXTENDER_PRIORITY = 10;

  private LayerLocality() {}

  public static long score(PodLayers pod, NodeLayers node, LayerSpread spread) {
    return score(pod, held(pod, node), spread);
  }

  /** @param held aligned with the pod's layers: whether the node holds each */
  public static long score(PodLayers pod, boolean[] held, LayerSpread spread) {
    List<Layer> layers = pod.layers();
    double heldBytes = 0;
    for (int i = 0; i < layers.size(); i++) {
      if (held[i]) {
        heldBytes += spreadBytes(layers.get(i).size(), spread.nodesWithLayer()[i], spread.totalNodes());
      }
    }
    return calculatePriority(heldBytes, pod.totalBytes());
  }

  /** Which of the pod's layers the node holds; one lookup per layer, reusable for spread and score. */
  public static boolean[] held(PodLayers pod, NodeLayers node) {
    List<Layer> layers = pod.layers();
    boolean[] held = new boolean[layers.size()];
    for (int i = 0; i < held.length; i++) {
      held[i] = node.holds(layers.get(i).digest());
    }
    return held;
  }

  /** A held layer's bytes, scaled by the fraction of nodes that hold it. */
  static double spreadBytes(long layerSizeBytes, int nodesWithLayer, int totalNodes) {
    return layerSizeBytes * ((double) nodesWithLayer / totalNodes);
  }

  /** Maps the spread-scaled held bytes, relative to the pod's bytes, to {@code 0..10}. */
  static long calculatePriority(double heldSpreadBytes, long podBytes) {
    if (podBytes == 0) {
      return 0;
    }
    long score = (long) Math.floor(MAX_EXTENDER_PRIORITY * heldSpreadBytes / podBytes);
    return Math.max(0, Math.min(MAX_EXTENDER_PRIORITY, score));
  }
}
