package io.crigate.interlink.seed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The KNoC provider's configuration ({@code knoc-cfg.json}, the virtual kubelet's
 * {@code --provider-config}): per node name, the {@code cpu}, {@code memory} and {@code pods} the
 * node advertises. crigate reads it as the node's capacity.
 */
public final class KnocProviderConfig {

  private static final List<String> KEYS = List.of("cpu", "memory", "pods");

  private KnocProviderConfig() {}

  /**
   * @throws CrigateException.InvalidArgument naming the file when it is unreadable, has no entry for
   *     {@code node} (KNoC then advertised built-in amounts; crigate asks for the entry instead), or
   *     has a key other than cpu, memory and pods
   */
  public static Map<String, String> capacity(Path file, String node) {
    JsonNode config;
    try {
      config = new ObjectMapper().readTree(file.toFile());
    } catch (IOException e) {
      throw invalid("--provider-config %s: not readable as JSON: %s".formatted(file, e.getMessage()));
    }
    JsonNode entry = config == null ? null : config.get(node);
    if (entry == null || !entry.isObject()) {
      throw invalid("--provider-config %s has no entry for node %s (it has %s); write {\"%s\": {\"cpu\": ..., \"memory\": ..., "
          .formatted(file, node, config == null ? "none" : iterable(config), node) + "\"pods\": ...}}");
    }
    Map<String, String> capacity = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> field : entry.properties()) {
      if (!KEYS.contains(field.getKey())) {
        throw invalid("--provider-config %s: node %s has unknown key '%s' (known: %s)"
            .formatted(file, node, field.getKey(), KEYS));
      }
      capacity.put(field.getKey(), field.getValue().asText());
    }
    return capacity;
  }

  private static List<String> iterable(JsonNode config) {
    return config.isObject() ? List.copyOf(config.propertyStream().map(Map.Entry::getKey).toList()) : List.of();
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }
}
