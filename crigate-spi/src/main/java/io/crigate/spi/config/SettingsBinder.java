package io.crigate.spi.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.spi.CrigateException;
import io.crigate.spi.Durations;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Binds a section of crigate's configuration into a record with Jackson, the one way every part
 * reads its settings. Unknown keys are refused, durations are read with {@link Durations} (Go's
 * {@code 500ms}, {@code 1m30s} or ISO-8601; positive), and every problem becomes one
 * {@link CrigateException.InvalidArgument} that names the key by its full path, e.g.
 * {@code unknown images.registry key 'tagTTL' (known: platform, insecure, ...)}.
 */
public final class SettingsBinder {

  private static final String DURATION_FORMS = "a positive duration such as 500ms, 5s, 1m30s or PT5S";

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      // 1.5 calls or "64" as a number are typos, not values to round or convert; a number where text
      // is wanted (socketGroup: 1000) is read as its text
      .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
      .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
      .addModule(new SimpleModule("crigate-settings").addDeserializer(Duration.class, new GoDurationDeserializer()))
      .build();

  private SettingsBinder() {}

  /**
   * {@code node} as a {@code type}; a missing or null node binds as an empty mapping, so every key
   * takes its default.
   *
   * @param where the path of {@code node} in the configuration ({@code "images.registry"}), empty
   *     for the top level; it prefixes every key named in an error
   * @throws CrigateException.InvalidArgument naming the key and what it must be
   */
  public static <T> T bind(JsonNode node, Class<T> type, String where) {
    JsonNode given = node == null || node.isMissingNode() || node.isNull() ? MAPPER.createObjectNode() : node;
    try {
      return MAPPER.treeToValue(given, type);
    } catch (UnrecognizedPropertyException e) {
      String parent = path(where, e.getPath().subList(0, e.getPath().size() - 1));
      throw invalid("unknown %s key '%s' (known: %s)".formatted(parent.isEmpty() ? "top-level" : parent,
          e.getPropertyName(), known(e.getReferringClass(), e.getKnownPropertyIds())));
    } catch (InvalidFormatException e) {
      throw invalid("'%s' must be %s, not '%s'".formatted(path(where, e.getPath()), describe(e.getTargetType()),
          e.getValue()));
    } catch (MismatchedInputException e) {
      throw invalid("'%s' must be %s".formatted(path(where, e.getPath()), describe(e.getTargetType())));
    } catch (JsonMappingException e) {
      if (e.getCause() instanceof CrigateException.InvalidArgument problem) {
        throw invalid("'%s': %s".formatted(path(where, e.getPath()), problem.getMessage()));
      }
      throw invalid("'%s': %s".formatted(path(where, e.getPath()), e.getOriginalMessage()));
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw invalid("%s: %s".formatted(where.isEmpty() ? "configuration" : where, e.getMessage()));
    }
  }

  /** The full path of a key: {@code where}, then each field as {@code .name} and each index as {@code [i]}. */
  private static String path(String where, List<JsonMappingException.Reference> references) {
    StringBuilder path = new StringBuilder(where);
    for (JsonMappingException.Reference reference : references) {
      if (reference.getFieldName() != null) {
        path.append(path.isEmpty() ? "" : ".").append(reference.getFieldName());
      } else if (reference.getIndex() >= 0) {
        path.append('[').append(reference.getIndex()).append(']');
      }
    }
    return path.toString();
  }

  /** The keys {@code type} knows, in the order its record declares them (a reader's order), else sorted. */
  private static String known(Class<?> type, Collection<Object> keys) {
    if (type != null && type.isRecord()) {
      return Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).collect(Collectors.joining(", "));
    }
    return keys == null ? "" : keys.stream().map(Object::toString).sorted().collect(Collectors.joining(", "));
  }

  private static String describe(Class<?> type) {
    if (type == null) {
      return "of another kind";
    }
    if (type == Duration.class) {
      return DURATION_FORMS;
    }
    if (type == String.class) {
      return "a string";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (Number.class.isAssignableFrom(type) || (type.isPrimitive() && type != boolean.class)) {
      return describeNumber(type);
    }
    if (Collection.class.isAssignableFrom(type) || type.isArray() || type == ArrayNode.class) {
      return "a list";
    }
    if (Map.class.isAssignableFrom(type) || type == ObjectNode.class || type.isRecord()) {
      return "a mapping";
    }
    return "a " + type.getSimpleName();
  }

  private static String describeNumber(Class<?> type) {
    return type == double.class || type == Double.class || type == float.class || type == Float.class
        ? "a number" : "a whole number";
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }

  /**
   * Reads a duration written as Go or ISO-8601 text. A bare number is refused: without a unit it is
   * ambiguous, and every old key that took one ({@code ...Seconds}) is read by {@link SecondsOrDuration}.
   */
  private static final class GoDurationDeserializer extends JsonDeserializer<Duration> {
    @Override
    public Duration deserialize(JsonParser parser, DeserializationContext context) throws IOException {
      if (parser.currentToken() != JsonToken.VALUE_STRING) {
        return (Duration) context.handleUnexpectedToken(Duration.class, parser);
      }
      return positive(parser.getText(), context);
    }
  }

  static Duration positive(String text, DeserializationContext context) throws IOException {
    return Durations.parse(text.trim()).filter(d -> !d.isZero() && !d.isNegative())
        .orElseThrow(() -> InvalidFormatException.from(context.getParser(), DURATION_FORMS, text, Duration.class));
  }
}
