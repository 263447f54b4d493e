package io.crigate.images;

import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * The layers one node holds, as the scheduler scores it.
 *
 * @param node the Kubernetes node name
 * @param layers digest to compressed size, for layers present or being pulled
 * @param pulling digests of layers whose pull is in progress (a subset of {@code layers}' keys)
 * @param updated when the node last changed this inventory
 */
public record NodeLayerInventory(String node, Map<String, Long> layers, Set<String> pulling, Instant updated) {

  public NodeLayerInventory {
    layers = Map.copyOf(layers);
    pulling = Set.copyOf(pulling);
  }

  public static NodeLayerInventory empty(String node, Instant updated) {
    return new NodeLayerInventory(node, Map.of(), Set.of(), updated);
  }

  /** Compressed bytes of the given layer already on (or arriving at) this node, 0 if absent. */
  public long bytesOf(String digest) {
    return layers.getOrDefault(digest, 0L);
  }

  public long totalBytes() {
    return layers.values().stream().mapToLong(Long::longValue).sum();
  }
}
