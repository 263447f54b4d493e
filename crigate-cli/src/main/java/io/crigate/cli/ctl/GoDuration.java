package io.crigate.cli.ctl;

import io.crigate.spi.Durations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads durations the way crictl users write them ({@code 500ms}, {@code 30s}, {@code 1m30s}, {@code 2h}), with crigate's one parser. */
final class GoDuration implements ITypeConverter<Duration> {

  @Override
  public Duration convert(String text) {
    return Durations.parse(text).orElseThrow(() -> new TypeConversionException(
        "'%s' is not a duration (examples: 500ms, 30s, 1m30s, 2h)".formatted(text)));
  }
}
