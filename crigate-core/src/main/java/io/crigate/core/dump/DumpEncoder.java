package io.crigate.core.dump;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * Turns a {@link DumpedCall} into one YAML document or one JSON line. The envelope is built with
 * Jackson; the CRI messages are printed by protobuf's JsonFormat (proto field names, so they read
 * like the CRI definition) after secrets are redacted.
 */
final class DumpEncoder {

  private static final double NANOS_PER_MILLI = 1_000_000.0;

  private final DumpFormat format;
  private final SecretRedactor redactor;
  private final ObjectMapper envelope;
  private final JsonFormat.Printer printer =
      JsonFormat.printer().preservingProtoFieldNames().omittingInsignificantWhitespace();
  private final ObjectMapper messageReader = new ObjectMapper();

  DumpEncoder(DumpFormat format, SecretRedactor redactor) {
    this.format = format;
    this.redactor = redactor;
    this.envelope = switch (format) {
      case YAML -> new ObjectMapper(YAMLFactory.builder().disable(YAMLGenerator.Feature.SPLIT_LINES).build());
      case JSON -> new ObjectMapper();
    };
  }

  String encode(DumpedCall call) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("time", call.time().toString());
    node.put("method", call.method());
    node.put("latencyMs", call.latencyNanos() / NANOS_PER_MILLI);
    node.put("code", call.status().getCode().name());
    if (call.status().getDescription() != null) {
      node.put("error", redactor.redactText(call.status().getDescription()));
    }
    ObjectNode ids = idsOf(call);
    if (!ids.isEmpty()) {
      node.set("ids", ids);
    }
    if (call.responses() > 1) {
      node.put("responses", call.responses());
    }
    if (call.level() == DumpLevel.FULL) {
      if (call.request() != null) {
        node.set("request", messageTree(call.request()));
      }
      if (call.response() != null && call.responses() == 1) {
        node.set("response", messageTree(call.response()));
      }
    }
    return write(node);
  }

  /** The record written after the writer had to drop calls because it fell behind. */
  String encodeDropped(Instant time, long dropped) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("time", time.toString());
    node.put("dropped", dropped);
    return write(node);
  }

  private String write(ObjectNode node) {
    try {
      String text = envelope.writeValueAsString(node);
      return format == DumpFormat.JSON ? text + "\n" : text;
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Top-level string fields named {@code *_id} of the request and the response. */
  private static ObjectNode idsOf(DumpedCall call) {
    ObjectNode ids = JsonNodeFactory.instance.objectNode();
    for (Message message : new Message[] {call.request(), call.response()}) {
      if (message == null) {
        continue;
      }
      message.getAllFields().forEach((field, value) -> {
        if (field.getName().endsWith("_id") && field.getJavaType() == FieldDescriptor.JavaType.STRING
            && !field.isRepeated()) {
          ids.put(field.getName(), (String) value);
        }
      });
    }
    return ids;
  }

  private com.fasterxml.jackson.databind.JsonNode messageTree(Message message) {
    try {
      return messageReader.readTree(printer.print(redactor.redact(message)));
    } catch (InvalidProtocolBufferException | JsonProcessingException e) {
      throw new IllegalStateException("cannot print " + message.getDescriptorForType().getName(), e);
    }
  }
}
