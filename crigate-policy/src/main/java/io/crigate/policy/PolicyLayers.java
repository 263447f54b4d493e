package io.crigate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.EnumMap;
import java.util.Map;

/**
 * Where the policy configuration comes from, lowest precedence first: the {@code policy} section of
 * the main configuration, then each {@link ConfigLayer}. A layer's keys replace the same keys below it;
 * keys it does not name keep their value from below.
 */
record PolicyLayers(JsonNode base, Map<ConfigLayer, JsonNode> overlays) {

  PolicyLayers {
    overlays = Map.copyOf(overlays);
  }

  static PolicyLayers of(JsonNode base) {
    return new PolicyLayers(base, Map.of());
  }

  PolicyLayers with(ConfigLayer layer, JsonNode overlay) {
    Map<ConfigLayer, JsonNode> next = new EnumMap<>(ConfigLayer.class);
    next.putAll(overlays);
    next.put(layer, overlay);
    return new PolicyLayers(base, next);
  }

  PolicyLayers without(ConfigLayer layer) {
    Map<ConfigLayer, JsonNode> next = new EnumMap<>(ConfigLayer.class);
    next.putAll(overlays);
    next.remove(layer);
    return new PolicyLayers(base, next);
  }

  /** The effective section. */
  JsonNode merged() {
    ObjectNode merged = base.isObject() ? ((ObjectNode) base).deepCopy() : JsonNodeFactory.instance.objectNode();
    for (ConfigLayer layer : ConfigLayer.values()) {
      JsonNode overlay = overlays.get(layer);
      if (overlay != null && overlay.isObject()) {
        merged.setAll((ObjectNode) overlay.deepCopy());
      }
    }
    return merged;
  }
}
