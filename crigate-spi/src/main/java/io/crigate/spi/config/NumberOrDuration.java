package io.crigate.spi.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import java.io.IOException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * For a duration setting that replaced an older key holding a bare number of some unit
 * ({@code tagTtlSeconds} became {@code tagTtl}, {@code pollIntervalMillis} became
 * {@code pollInterval}): the field carries the old key as a {@code @JsonAlias} and a subclass of
 * this deserializer naming the old unit, so a bare number keeps its old meaning while {@code 30s}
 * or {@code 1m} work as everywhere else.
 */
public abstract class NumberOrDuration extends JsonDeserializer<Duration> {

  private final ChronoUnit unitOfBareNumbers;

  protected NumberOrDuration(ChronoUnit unitOfBareNumbers) {
    this.unitOfBareNumbers = unitOfBareNumbers;
  }

  @Override
  public Duration deserialize(JsonParser parser, DeserializationContext context) throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_NUMBER_INT) {
      long amount = parser.getLongValue();
      if (amount <= 0) {
        throw InvalidFormatException.from(parser,
            "a positive number of " + unitOfBareNumbers.toString().toLowerCase(Locale.ROOT), amount,
            Duration.class);
      }
      return Duration.of(amount, unitOfBareNumbers);
    }
    if (parser.currentToken() != JsonToken.VALUE_STRING) {
      return (Duration) context.handleUnexpectedToken(Duration.class, parser);
    }
    return SettingsBinder.positive(parser.getText(), context);
  }
}
