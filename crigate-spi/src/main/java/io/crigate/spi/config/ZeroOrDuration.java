package io.crigate.spi.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import io.crigate.spi.CrigateException;
import io.crigate.spi.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * For a duration setting whose zero turns something off: {@code 0}, {@code 0s} or a positive
 * duration. Elsewhere durations must be positive ({@link SettingsBinder}), since zero there would
 * mean a busy loop or no wait at all.
 */
public final class ZeroOrDuration extends JsonDeserializer<Duration> {

  @Override
  public Duration deserialize(JsonParser parser, DeserializationContext context) throws IOException {
    Optional<Duration> read = switch (parser.currentToken()) {
      case VALUE_NUMBER_INT -> parser.getLongValue() == 0 ? Optional.of(Duration.ZERO) : Optional.empty();
      case VALUE_STRING -> Durations.parse(parser.getText().trim()).filter(d -> !d.isNegative());
      default -> Optional.empty();
    };
    if (read.isEmpty()) {
      String problem = "must be 0 (off) or a positive duration such as 500ms, 30s or 1m30s, not '%s'"
          .formatted(parser.currentToken() == JsonToken.VALUE_STRING ? parser.getText() : parser.readValueAsTree());
      throw JsonMappingException.from(parser, problem, new CrigateException.InvalidArgument(problem));
    }
    return read.get();
  }
}
