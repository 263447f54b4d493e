package io.crigate.images;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Converts between a node's {@link NodeLayerInventory} and the {@link NodeImageLayers} object that
 * publishes it. Encoding keeps the spec under a byte budget: when a node holds more layers than
 * fit, the smallest are left out (they matter least to a size-weighted score) and the spec says so.
 */
public final class NodeImageLayersCodec {

  /**
   * Spec bytes one object may use. etcd refuses requests above 1.5 MiB (1,572,864 bytes); the rest
   * is left for metadata. The CRD marks {@code layers} atomic, so managedFields does not repeat the keys.
   */
  public static final int DEFAULT_MAX_SPEC_BYTES = 1_400_000;

  /** Field names, the update time and braces of a spec, without its entries. */
  static final int SPEC_FRAME_BYTES = 128;

  /** JSON punctuation around one {@code "digest":size,} entry. */
  private static final int LAYER_ENTRY_OVERHEAD = 4;

  /** JSON punctuation around one {@code "digest",} entry of {@code pulling}. */
  private static final int PULLING_ENTRY_OVERHEAD = 3;

  private NodeImageLayersCodec() {}

  public static NodeImageLayers toResource(NodeLayerInventory inventory) {
    return toResource(inventory, DEFAULT_MAX_SPEC_BYTES);
  }

  public static NodeImageLayers toResource(NodeLayerInventory inventory, int maxSpecBytes) {
    List<Map.Entry<String, Long>> largestFirst = new ArrayList<>(inventory.layers().entrySet());
    largestFirst.sort(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
        .thenComparing(Map.Entry.comparingByKey()));
    var layers = new TreeMap<String, Long>();
    long used = SPEC_FRAME_BYTES;
    for (var layer : largestFirst) {
      long cost = entryBytes(layer.getKey(), layer.getValue(), inventory.pulling().contains(layer.getKey()));
      if (used + cost > maxSpecBytes) {
        break;
      }
      used += cost;
      layers.put(layer.getKey(), layer.getValue());
    }
    List<String> pulling = inventory.pulling().stream().filter(layers::containsKey).sorted().toList();
    var resource = new NodeImageLayers();
    resource.setMetadata(new ObjectMetaBuilder().withName(inventory.node()).build());
    resource.setSpec(new NodeImageLayersSpec(
        layers, pulling, inventory.updated().toString(), layers.size() < inventory.layers().size()));
    return resource;
  }

  public static NodeLayerInventory fromResource(NodeImageLayers resource) {
    NodeImageLayersSpec spec = resource.getSpec();
    Map<String, Long> layers = spec.layers() == null ? Map.of() : spec.layers();
    layers.keySet().forEach(Layer::requireDigest);
    Set<String> pulling = spec.pulling() == null ? Set.of() : Set.copyOf(spec.pulling());
    Instant updated = spec.updated() == null ? Instant.EPOCH : Instant.parse(spec.updated());
    return new NodeLayerInventory(resource.getMetadata().getName(), layers, pulling, updated);
  }

  /** Worst-case JSON bytes one layer costs in the spec: its map entry, plus its pulling entry if any. */
  static long entryBytes(String digest, long size, boolean pulling) {
    long bytes = digest.length() + Long.toString(size).length() + LAYER_ENTRY_OVERHEAD;
    return pulling ? bytes + digest.length() + PULLING_ENTRY_OVERHEAD : bytes;
  }
}
