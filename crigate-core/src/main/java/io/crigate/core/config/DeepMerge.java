package io.crigate.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Lays one tree over another mapping by mapping, so a translated {@code policy.active} replaces
 * the file's {@code policy.active} and keeps its {@code policy.kubernetes}. Backends replace the
 * file's backend of the same name, as flags do; other lists and scalars are replaced whole.
 */
final class DeepMerge {

  private DeepMerge() {}

  static ObjectNode over(ObjectNode base, ObjectNode overlay) {
    ObjectNode merged = base.deepCopy();
    overlay.properties().forEach(entry -> {
      JsonNode current = merged.get(entry.getKey());
      if (current instanceof ObjectNode currentObject && entry.getValue() instanceof ObjectNode overlayObject) {
        merged.set(entry.getKey(), over(currentObject, overlayObject));
      } else if (entry.getKey().equals(ConfigKeys.BACKENDS) && current instanceof ArrayNode backends) {
        entry.getValue().forEach(backend -> ConfigMerge.replaceOrAppend(backends, backend.deepCopy()));
      } else {
        merged.set(entry.getKey(), entry.getValue().deepCopy());
      }
    });
    return merged;
  }
}
