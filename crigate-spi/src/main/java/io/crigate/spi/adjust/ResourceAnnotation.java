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
   * The same information as CRI Resource Manager's webhook writes it, init containers apart:
   * {@code {"initContainers":{...},"containers":{...}}}. Read when crigate's own key is absent.
   */
  public static final String CRI_RM_KEY = "intel.com/resources";

  /**
   * The requirements by container name.
   *
   * @throws IllegalArgumentException naming the container and field that cannot be read
   */
  public static Map<String, ResourceRequirements> parse(String json) {
    return parse(KEY, json, false);
  }

  /**
   * The requirements from whichever webhook annotation the pod carries, crigate's before CRI Resource
   * Manager's; empty when it carries neither. Init containers count as containers, as crigate's
   * webhook writes them: CRI creates them the same way.
   *
   * @throws IllegalArgumentException naming the key, container and field that cannot be read
   */
  public static Map<String, ResourceRequirements> fromAnnotations(Map<String, String> annotations) {
    String own = annotations.get(KEY);
    if (own != null) {
      return parse(KEY, own, false);
    }
    String criRm = annotations.get(CRI_RM_KEY);
    return criRm == null ? Map.of() : parse(CRI_RM_KEY, criRm, true);
  }

  private static Map<String, ResourceRequirements> parse(String key, String json, boolean initContainersApart) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("annotation %s is not JSON: %s".formatted(key, e.getOriginalMessage()));
    }
    JsonNode containers = root.path("containers");
    if (!containers.isObject()) {
      throw new IllegalArgumentException("annotation %s has no 'containers' object".formatted(key));
    }
    Map<String, ResourceRequirements> byName = new LinkedHashMap<>();
    if (initContainersApart && root.path("initContainers").isObject()) {
      root.path("initContainers").properties().forEach(entry -> byName.put(entry.getKey(),
          requirements(key, "initContainers." + entry.getKey(), entry.getValue())));
    }
    containers.properties().forEach(entry -> byName.put(entry.getKey(),
        requirements(key, "containers." + entry.getKey(), entry.getValue())));
    return byName;
  }

  /** The annotation value for these containers' requests and limits, given as quantity strings. */
  public static String format(Map<String, Map<String, Map<String, String>>> requestsAndLimitsByContainer) {
    ObjectNode root = JSON.createObjectNode();
    root.set("containers", JSON.valueToTree(requestsAndLimitsByContainer));
    return root.toString();
  }

  private static ResourceRequirements requirements(String key, String where, JsonNode node) {
    return new ResourceRequirements(
        quantity(key, where, node, "requests", "cpu", true), quantity(key, where, node, "limits", "cpu", true),
        quantity(key, where, node, "requests", "memory", false), quantity(key, where, node, "limits", "memory", false));
  }

  private static long quantity(String key, String where, JsonNode node, String kind, String resource, boolean cpu) {
    JsonNode value = node.path(kind).path(resource);
    if (value.isMissingNode() || value.isNull()) {
      return 0;
    }
    try {
      return cpu ? Quantity.milliCpu(value.asText()) : Quantity.bytes(value.asText());
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new IllegalArgumentException("annotation %s: %s.%s.%s: %s"
          .formatted(key, where, kind, resource, e.getMessage()));
    }
  }
}
