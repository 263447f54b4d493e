package io.crigate.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.spi.adjust.ResourceAnnotation;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JSONPatch that puts every container's requests and limits, as the pod spec has them, into the
 * pod annotation {@link ResourceAnnotation#KEY}. Init containers are included: CRI creates them too.
 */
final class ResourcePatch {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private ResourcePatch() {}

  /** @throws IllegalArgumentException naming what of the pod cannot be read */
  static ArrayNode of(JsonNode pod) {
    JsonNode spec = pod.path("spec");
    if (!spec.path("containers").isArray()) {
      throw new IllegalArgumentException("the object has no spec.containers list; is it a Pod?");
    }
    Map<String, Map<String, Map<String, String>>> byContainer = new LinkedHashMap<>();
    for (String list : new String[] {"initContainers", "containers"}) {
      for (JsonNode container : spec.path(list)) {
        String name = container.path("name").asText("");
        if (name.isEmpty()) {
          throw new IllegalArgumentException("a container in spec.%s has no name".formatted(list));
        }
        Map<String, Map<String, String>> resources = new LinkedHashMap<>();
        for (String kind : new String[] {"requests", "limits"}) {
          Map<String, String> values = new LinkedHashMap<>();
          for (String resource : new String[] {"cpu", "memory"}) {
            JsonNode value = container.path("resources").path(kind).path(resource);
            if (!value.isMissingNode() && !value.isNull()) {
              values.put(resource, value.asText());
            }
          }
          resources.put(kind, values);
        }
        byContainer.put(name, resources);
      }
    }
    String value = ResourceAnnotation.format(byContainer);
    ResourceAnnotation.parse(value); // what the policies cannot read must not be written
    ArrayNode patch = JSON.arrayNode();
    JsonNode annotations = pod.path("metadata").path("annotations");
    if (annotations.isObject()) {
      // RFC 6901: "/" in a key is written "~1"
      patch.add(op(annotations.has(ResourceAnnotation.KEY) ? "replace" : "add",
          "/metadata/annotations/" + ResourceAnnotation.KEY.replace("~", "~0").replace("/", "~1"), JSON.textNode(value)));
    } else {
      ObjectNode created = JSON.objectNode().put(ResourceAnnotation.KEY, value);
      patch.add(op("add", "/metadata/annotations", created));
    }
    return patch;
  }

  private static ObjectNode op(String op, String path, JsonNode value) {
    ObjectNode node = JSON.objectNode().put("op", op).put("path", path);
    node.set("value", value);
    return node;
  }
}
