package io.crigate.images;

import java.util.List;
import java.util.Map;

/**
 * What a {@link NodeImageLayers} object carries. Field names are the wire contract with every
 * scheduler that reads it; change them only with a new API version.
 *
 * @param layers digest ({@code sha256:<hex>}) to compressed size in bytes, present or being pulled;
 *     written in digest order so an unchanged inventory serializes to identical bytes
 * @param pulling digests whose pull is in progress, sorted
 * @param updated RFC 3339 instant of the node's last change
 * @param truncated true when the node had more layers than fit one object and the smallest were left out
 */
public record NodeImageLayersSpec(Map<String, Long> layers, List<String> pulling, String updated, boolean truncated) {

  static final NodeImageLayersSpec EMPTY = new NodeImageLayersSpec(Map.of(), List.of(), null, false);
}
