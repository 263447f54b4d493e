package io.crigate.scheduler;

import io.crigate.images.Layer;
import java.util.Collection;
import java.util.List;

/**
 * For each of one pod's layers, on how many of the cluster's nodes it is held. Computed once per
 * pod, then shared by the score of every candidate node.
 *
 * @param nodesWithLayer aligned with {@link PodLayers#layers()}
 */
public record LayerSpread(int[] nodesWithLayer, int totalNodes) {

  public static LayerSpread of(PodLayers pod, Collection<? extends NodeLayers> cluster) {
    List<Layer> layers = pod.layers();
    int[] counts = new int[layers.size()];
    for (NodeLayers node : cluster) {
      for (int i = 0; i < counts.length; i++) {
        if (node.holds(layers.get(i).digest())) {
          counts[i]++;
        }
      }
    }
    return new LayerSpread(counts, cluster.size());
  }
}
