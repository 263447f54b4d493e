package io.crigate.scheduler;

import java.util.Collection;

/**
 * For each of one pod's layers, on how many of the cluster's nodes it is held. Computed once per
 * pod, then shared by the score of every candidate node.
 *
 * @param nodesWithLayer aligned with {@link PodLayers#layers()}
 */
public record LayerSpread(int[] nodesWithLayer, int totalNodes) {

  public static LayerSpread of(PodLayers pod, Collection<? extends NodeLayers> cluster) {
    return of(pod.layers().size(), cluster.stream().map(node -> LayerLocality.held(pod, node)).toList());
  }

  /** From each node's {@link LayerLocality#held} answers, computed once and reused for the scores. */
  public static LayerSpread of(int podLayers, Collection<boolean[]> heldByNode) {
    int[] counts = new int[podLayers];
    for (boolean[] held : heldByNode) {
      for (int i = 0; i < counts.length; i++) {
        if (held[i]) {
          counts[i]++;
        }
      }
    }
    return new LayerSpread(counts, heldByNode.size());
  }
}
