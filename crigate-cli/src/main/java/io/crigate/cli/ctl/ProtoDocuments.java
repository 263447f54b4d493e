package io.crigate.cli.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import java.util.Map;

/** CRI responses as JSON trees in proto3 JSON form (lowerCamel names, enum names). */
final class ProtoDocuments {

  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final JsonFormat.Printer PRINTER = JsonFormat.printer();

  private ProtoDocuments() {}

  static JsonNode tree(MessageOrBuilder message) {
    try {
      return JSON.readTree(PRINTER.print(message));
    } catch (InvalidProtocolBufferException | JsonProcessingException e) {
      // Generated CRI messages always print; reaching this means a broken build, not bad input.
      throw new IllegalStateException(
          "cannot print " + message.getDescriptorForType().getFullName(), e);
    }
  }

  /**
   * The response as a tree, with each verbose {@code info} value (runtimes put JSON documents
   * there as strings) embedded as JSON where it parses, as crictl shows it.
   */
  static JsonNode withInfo(MessageOrBuilder response, Map<String, String> info) {
    ObjectNode document = (ObjectNode) tree(response);
    if (info.isEmpty()) {
      return document;
    }
    ObjectNode parsed = document.putObject("info");
    info.forEach((key, value) -> parsed.set(key, parseOrText(value)));
    return document;
  }

  private static JsonNode parseOrText(String value) {
    try {
      JsonNode node = JSON.readTree(value);
      return node == null || node.isMissingNode() ? TextNode.valueOf(value) : node;
    } catch (JsonProcessingException e) {
      return TextNode.valueOf(value);
    }
  }
}
