package io.crigate.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Lays the flags' tree over the file's tree: a flag replaces the file's value for the same key;
 * {@code dump} keys are replaced one by one; a backend from a flag replaces the file's backend of
 * the same name and any other is appended.
 */
final class ConfigMerge {

  private ConfigMerge() {}

  static ObjectNode merge(ObjectNode file, ObjectNode flags) {
    ObjectNode merged = file.deepCopy();
    flags.properties().forEach(entry -> {
      String key = entry.getKey();
      JsonNode value = entry.getValue();
      JsonNode current = merged.get(key);
      if (key.equals(ConfigKeys.DUMP) && current instanceof ObjectNode dump) {
        dump.setAll((ObjectNode) value);
      } else if (key.equals(ConfigKeys.BACKENDS) && current instanceof ArrayNode backends) {
        value.forEach(backend -> replaceOrAppend(backends, backend));
      } else {
        merged.set(key, value);
      }
    });
    return merged;
  }

  static void replaceOrAppend(ArrayNode backends, JsonNode backend) {
    JsonNode name = backend.get(ConfigKeys.NAME);
    for (int i = 0; i < backends.size(); i++) {
      if (name.equals(backends.get(i).get(ConfigKeys.NAME))) {
        backends.set(i, backend);
        return;
      }
    }
    backends.add(backend);
  }
}
