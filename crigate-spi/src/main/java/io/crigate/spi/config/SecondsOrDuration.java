package io.crigate.spi.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import java.io.IOException;
import java.time.Duration;

/**
 * For a duration setting that replaced an older whole-seconds key ({@code tagTtlSeconds} became
 * {@code tagTtl}): the field carries the old key as a {@code @JsonAlias} and this deserializer, so a
 * bare number still means seconds while {@code 30s} or {@code 1m} work as everywhere else.
 */
public final class SecondsOrDuration extends JsonDeserializer<Duration> {

  @Override
  public Duration deserialize(JsonParser parser, DeserializationContext context) throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_NUMBER_INT) {
      long seconds = parser.getLongValue();
      if (seconds <= 0) {
        throw InvalidFormatException.from(parser, "a positive number of seconds", seconds, Duration.class);
      }
      return Duration.ofSeconds(seconds);
    }
    if (parser.currentToken() != JsonToken.VALUE_STRING) {
      return (Duration) context.handleUnexpectedToken(Duration.class, parser);
    }
    return SettingsBinder.positive(parser.getText(), context);
  }
}
