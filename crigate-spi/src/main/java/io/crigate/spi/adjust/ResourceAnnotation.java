package io.crigate.spi.adjust;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The pod annotation crigate's webhook writes: every container's requests and limits as the pod
 * spec had them, because CRI carries only values derived from them (shares, quota) and loses the
 * memory request entirely. Format:
 * {@code {"containers":{"app":{"requests":{"cpu":"2","memory":"1Gi"},"limits":{...}}}}}.
 */
public final class ResourceAnnotation {

  /** The annotation key. */
  public static final String KEY = "resources.crigate.io/containers";

  private static final ObjectMapper JSON = new ObjectMapper();

  private ResourceAnnotation() {}

  /**
   * The requirements by container name.
   *
   * @throws IllegalArgumentException naming the container and field that cannot be read
   */
  public static Map<String, ResourceRequirements> parse(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("annotation %s is not JSON: %s".formatted(KEY, e.getOriginalMessage()));
    }
    JsonNode containers = root.path("containers");
    if (!containers.isObject()) {
      throw new IllegalArgumentException("annotation %s has no 'containers' object".formatted(KEY));
    }
    Map<String, ResourceRequirements> byName = new LinkedHashMap<>();
    containers.properties().forEach(entry -> byName.put(entry.getKey(), requirements(entry.getKey(), entry.getValue())));
    return byName;
  }

  /** The annotation value for these containers' requests and limits, given as quantity strings. */
  public static String format(Map<String, Map<String, Map<String, String>>> requestsAndLimitsByContainer) {
    ObjectNode root = JSON.createObjectNode();
    root.set("containers", JSON.valueToTree(requestsAndLimitsByContainer));
    return root.toString();
  }

  private static ResourceRequirements requirements(String container, JsonNode node) {
    return new ResourceRequirements(
        quantity(container, node, "requests", "cpu", true), quantity(container, node, "limits", "cpu", true),
        quantity(container, node, "requests", "memory", false), quantity(container, node, "limits", "memory", false));
  }

  private static long quantity(String container, JsonNode node, String kind, String resource, boolean cpu) {
    JsonNode value = node.path(kind).path(resource);
    if (value.isMissingNode() || value.isNull()) {
      return 0;
    }
    try {
      return cpu ? Quantity.milliCpu(value.asText()) : Quantity.bytes(value.asText());
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new IllegalArgumentException("annotation %s: containers.%s.%s.%s: %s"
          .formatted(KEY, container, kind, resource, e.getMessage()));
    }
  }
}
