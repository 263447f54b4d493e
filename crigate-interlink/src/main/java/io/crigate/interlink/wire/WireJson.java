package io.crigate.interlink.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one JSON codec of the interLink wire. Go's encoding/json matches keys case-insensitively, and
 * interLink's OpenAPI documents (written from its Python SDK) use snake_case, so input keys are
 * first rewritten from snake_case to camelCase and then bound case-insensitively: {@code pod_uid},
 * {@code podUid} and {@code PodUID} all land in the same field. Keys inside free-form maps (ConfigMap
 * data, labels, annotations, resource lists) are file names or user keys and are left alone.
 */
public final class WireJson {

  /** Maps whose keys are data, not field names. */
  private static final Set<String> OPAQUE_MAPS = Set.of("data", "binaryData", "binary_data", "stringData",
      "string_data", "annotations", "labels", "nodeSelector", "node_selector", "limits", "requests", "capacity",
      "allocatable", "resources");

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .serializationInclusion(JsonInclude.Include.NON_NULL)
      .build();

  private WireJson() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** Parses a request body; a syntax error is a {@link BadRequest} naming where it is. */
  public static JsonNode parse(String body) {
    if (body == null || body.isBlank()) {
      throw new BadRequest("body", "the request body is empty; a JSON document is required");
    }
    try {
      return normalise(MAPPER.readTree(body), false);
    } catch (JsonProcessingException e) {
      throw new BadRequest("body", "not JSON: " + e.getOriginalMessage());
    }
  }

  /** Binds a normalised node, naming the field that does not fit in the error. */
  public static <T> T bind(JsonNode node, Class<T> type, String where) {
    try {
      return MAPPER.treeToValue(node, type);
    } catch (JsonProcessingException e) {
      throw new BadRequest(where + path(e), e.getOriginalMessage());
    }
  }

  /** A v1.Pod that must carry its uid (every interLink call names pods by uid). */
  public static Pod pod(JsonNode node, String where) {
    Pod pod = bind(node, Pod.class, where);
    if (pod.getMetadata() == null || pod.getMetadata().getUid() == null || pod.getMetadata().getUid().isBlank()) {
      throw new BadRequest(where + ".metadata.uid", "is required");
    }
    return pod;
  }

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode " + value.getClass().getSimpleName(), e);
    }
  }

  private static String path(JsonProcessingException e) {
    if (e instanceof com.fasterxml.jackson.databind.JsonMappingException mapping && !mapping.getPath().isEmpty()) {
      StringBuilder path = new StringBuilder();
      for (var ref : mapping.getPath()) {
        path.append(ref.getFieldName() != null ? "." + ref.getFieldName() : "[" + ref.getIndex() + "]");
      }
      return path.toString();
    }
    return "";
  }

  static JsonNode normalise(JsonNode node, boolean opaque) {
    if (node instanceof ObjectNode object) {
      ObjectNode result = MAPPER.createObjectNode();
      List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
      object.fields().forEachRemaining(fields::add);
      for (var field : fields) {
        String key = opaque ? field.getKey() : camel(field.getKey());
        result.set(key, normalise(field.getValue(), !opaque && OPAQUE_MAPS.contains(field.getKey())));
      }
      return result;
    }
    if (node instanceof ArrayNode array) {
      ArrayNode result = MAPPER.createArrayNode();
      array.forEach(item -> result.add(normalise(item, false)));
      return result;
    }
    return node;
  }

  static String camel(String key) {
    if (key.indexOf('_') <= 0) {
      return key;
    }
    StringBuilder out = new StringBuilder(key.length());
    boolean upper = false;
    for (char c : key.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.toString();
  }
}
