package io.crigate.scheduler.extender;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.spi.CrigateException.InvalidArgument;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * kube-scheduler's extender wire format ({@code k8s.io/kube-scheduler/extender/v1}): Go structs
 * without JSON tags, so keys are the PascalCase field names. Go decodes keys case-insensitively,
 * and so do we for the top-level keys.
 */
final class ExtenderJson {

  /** Encoded once: written thousands of times per answer. */
  private static final SerializedString HOST = new SerializedString("Host");
  private static final SerializedString SCORE = new SerializedString("Score");
  /** {@code {"Host":"","Score":10},} around a name: the most one entry adds to it (ASCII names, as node names are). */
  private static final int ENTRY_FRAME_BYTES = 24;

  private final ObjectMapper mapper =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /**
   * Streams the top level: NodeNames (thousands of strings on every request) is read straight into
   * a list, without a tree node per name; Pod and Nodes are small or must be echoed, so they stay trees.
   */
  ExtenderArgs parseArgs(byte[] body) {
    JsonNode pod = null;
    JsonNode nodes = null;
    List<String> names = null;
    try (JsonParser parser = mapper.getFactory().createParser(body)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new InvalidArgument("request body must be a JSON object with Pod and Nodes or NodeNames");
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName().toLowerCase(Locale.ROOT);
        JsonToken value = parser.nextToken();
        switch (field) {
          case "pod" -> pod = parser.readValueAsTree();
          case "nodes" -> nodes = parser.readValueAsTree();
          case "nodenames" -> names = value == JsonToken.VALUE_NULL ? null : names(parser);
          default -> parser.skipChildren();
        }
      }
    } catch (JsonProcessingException e) {
      throw new InvalidArgument("request body is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new InvalidArgument("request body unreadable: " + e.getMessage());
    }
    Pod parsed = pod(pod);
    return new ExtenderArgs(parsed, PodCpu.millis(parsed.getSpec()),
        names != null ? new CandidateNodes.Names(names) : nodeList(nodes));
  }

  private static List<String> names(JsonParser parser) throws IOException {
    if (parser.currentToken() != JsonToken.START_ARRAY) {
      throw new InvalidArgument("NodeNames must be an array of strings");
    }
    List<String> names = new ArrayList<>();
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      if (parser.currentToken() != JsonToken.VALUE_STRING || parser.getText().isEmpty()) {
        throw new InvalidArgument("NodeNames entry must be a non-empty string");
      }
      names.add(parser.getText());
    }
    return names;
  }

  private Pod pod(JsonNode json) {
    if (json == null || json.isNull()) {
      throw new InvalidArgument("missing Pod");
    }
    Pod pod;
    try {
      pod = mapper.treeToValue(json, Pod.class);
    } catch (JsonProcessingException e) {
      throw new InvalidArgument("Pod is not a v1.Pod: " + e.getOriginalMessage());
    }
    if (pod.getSpec() == null || pod.getSpec().getContainers().isEmpty()) {
      throw new InvalidArgument("Pod has no spec.containers");
    }
    for (var container : pod.getSpec().getContainers()) {
      if (container.getImage() == null || container.getImage().isBlank()) {
        throw new InvalidArgument("container %s of Pod has no image".formatted(container.getName()));
      }
    }
    return pod;
  }

  private static CandidateNodes nodeList(JsonNode nodeList) {
    if (nodeList != null && !nodeList.isNull()) {
      if (!nodeList.isObject() || !nodeList.path("items").isArray()) {
        throw new InvalidArgument("Nodes must be a v1.NodeList with an items array");
      }
      List<String> names = new ArrayList<>();
      nodeList.path("items").forEach(n -> names.add(requireText(n.path("metadata").path("name"), "Nodes item metadata.name")));
      return new CandidateNodes.NodeList((ObjectNode) nodeList, names);
    }
    throw new InvalidArgument("request has neither Nodes nor NodeNames");
  }

  private static String requireText(JsonNode node, String what) {
    if (!node.isTextual() || node.asText().isEmpty()) {
      throw new InvalidArgument(what + " must be a non-empty string");
    }
    return node.asText();
  }

  /** {@code [{"Host": name, "Score": n}, ...]} */
  byte[] priorities(Priorities priorities) {
    // Streamed: thousands of entries, no tree needed. Sized for the whole answer up front, so the
    // buffer is not grown and copied on the way (an answer for 5,000 nodes is ~300 KB).
    List<String> hosts = priorities.hosts();
    int size = 2;
    for (String host : hosts) {
      size += host.length() + ENTRY_FRAME_BYTES;
    }
    var out = new ByteArrayOutputStream(size);
    try (JsonGenerator json = mapper.getFactory().createGenerator(out)) {
      json.writeStartArray();
      for (int i = 0; i < hosts.size(); i++) {
        json.writeStartObject();
        json.writeFieldName(HOST);
        json.writeString(hosts.get(i));
        json.writeFieldName(SCORE);
        json.writeNumber(priorities.scores()[i]);
        json.writeEndObject();
      }
      json.writeEndArray();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return out.toByteArray();
  }

  /** {@code {"Nodes"|"NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error"}} */
  byte[] filterResult(FilterResult result) {
    ObjectNode out = mapper.createObjectNode();
    switch (result.passed()) {
      case CandidateNodes.NodeList list -> out.set("Nodes", list.list());
      case CandidateNodes.Names names -> {
        out.putNull("Nodes");
        names.names().forEach(out.putArray("NodeNames")::add);
      }
    }
    if (!out.has("NodeNames")) {
      out.putNull("NodeNames");
    }
    ObjectNode failed = out.putObject("FailedNodes");
    result.failed().forEach(failed::put);
    out.putObject("FailedAndUnresolvableNodes");
    out.put("Error", "");
    return write(out);
  }

  private byte[] write(JsonNode node) {
    try {
      return mapper.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a Jackson tree always serializes", e);
    }
  }
}
