package io.crigate.cli.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.crigate.spi.CrigateException.InvalidArgument;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Reads pod and container configs in the JSON or YAML shape crictl uses (snake_case or lowerCamel
 * field names, enums by name or number) into CRI messages. Unknown fields are an error naming the
 * field, so a typo never silently drops a setting.
 */
final class ConfigFile {

  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final ObjectMapper YAML = YAMLMapper.builder().build();

  private ConfigFile() {}

  /** Merges {@code file} into {@code builder}; {@code .json} files are JSON, anything else YAML. */
  static <B extends Message.Builder> B read(Path file, B builder) {
    ObjectMapper mapper = file.toString().endsWith(".json") ? JSON : YAML;
    try (InputStream in = Files.newInputStream(file)) {
      JsonNode tree = mapper.readTree(in);
      if (!(tree instanceof ObjectNode object)) {
        throw new InvalidArgument("%s: expected a %s object at the top"
            .formatted(file, builder.getDescriptorForType().getName()));
      }
      encodeTextBytes(object, builder.getDescriptorForType());
      JsonFormat.parser().merge(JSON.writeValueAsString(object), builder);
      return builder;
    } catch (InvalidProtocolBufferException e) {
      throw new InvalidArgument("%s: %s".formatted(file, e.getMessage()));
    } catch (JsonProcessingException e) {
      throw new InvalidArgument("%s: %s".formatted(file, e.getOriginalMessage()));
    } catch (NoSuchFileException e) {
      throw new InvalidArgument("%s: no such file".formatted(file));
    } catch (IOException e) {
      throw new InvalidArgument("%s: %s".formatted(file, e.getMessage()));
    }
  }

  /**
   * crigate's CRI schema declares {@code KeyValue.value} (container env) as bytes, which proto JSON
   * spells in base64, while crictl configs hold plain text. Text under any bytes field is therefore
   * encoded before parsing, so {@code value: bar} means the three characters "bar".
   */
  private static void encodeTextBytes(ObjectNode object, Descriptor type) {
    for (Map.Entry<String, JsonNode> entry : List.copyOf(object.properties())) {
      FieldDescriptor field = fieldNamed(type, entry.getKey());
      if (field == null || field.isMapField()) {
        continue; // unknown fields are reported by the parser; maps hold strings only
      }
      JsonNode value = entry.getValue();
      if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        elements(value).forEach(
            element -> {
              if (element instanceof ObjectNode nested) {
                encodeTextBytes(nested, field.getMessageType());
              }
            });
      } else if (field.getJavaType() == FieldDescriptor.JavaType.BYTE_STRING) {
        object.set(entry.getKey(), base64(value));
      }
    }
  }

  private static FieldDescriptor fieldNamed(Descriptor type, String name) {
    FieldDescriptor byProtoName = type.findFieldByName(name);
    if (byProtoName != null) {
      return byProtoName;
    }
    return type.getFields().stream().filter(f -> f.getJsonName().equals(name)).findFirst().orElse(null);
  }

  private static List<JsonNode> elements(JsonNode value) {
    List<JsonNode> elements = new ArrayList<>();
    if (value.isArray()) {
      value.forEach(elements::add);
    } else {
      elements.add(value);
    }
    return elements;
  }

  private static JsonNode base64(JsonNode value) {
    if (value instanceof ArrayNode array) {
      ArrayNode encoded = array.arrayNode();
      array.forEach(element -> encoded.add(base64(element)));
      return encoded;
    }
    if (!value.isValueNode() || value.isNull()) {
      return value;
    }
    byte[] raw = value.asText().getBytes(StandardCharsets.UTF_8);
    return TextNode.valueOf(Base64.getEncoder().encodeToString(raw));
  }
}
