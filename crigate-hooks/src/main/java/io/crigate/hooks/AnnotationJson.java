package io.crigate.hooks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.crigate.spi.CrigateException;
import java.util.Map;

/** Reads a JSON-valued pod annotation; a malformed one is an error naming the key. */
final class AnnotationJson {

  private static final ObjectMapper JSON = new ObjectMapper();

  private AnnotationJson() {}

  /** The parsed object, or a missing node when the annotation is absent or empty. */
  static JsonNode read(Map<String, String> annotations, String key) {
    String value = annotations.get(key);
    if (value == null || value.isBlank()) {
      return MissingNode.getInstance();
    }
    try {
      JsonNode node = JSON.readTree(value);
      if (!node.isObject()) {
        throw invalid(key, "must be a JSON object");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw invalid(key, "is not valid JSON: " + e.getOriginalMessage());
    }
  }

  static CrigateException.InvalidArgument invalid(String key, String problem) {
    return new CrigateException.InvalidArgument("annotation %s %s".formatted(key, problem));
  }
}
