package io.crigate.cli.ctl;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads durations the way crictl users write them: {@code 500ms}, {@code 30s}, {@code 1m30s}, {@code 2h}. */
final class GoDuration implements ITypeConverter<Duration> {

  private static final Pattern TERM = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

  @Override
  public Duration convert(String text) {
    Matcher term = TERM.matcher(text);
    double nanos = 0;
    int end = 0;
    while (term.lookingAt()) {
      nanos += Double.parseDouble(term.group(1)) * nanosPer(term.group(2));
      end = term.end();
      term.region(end, text.length());
    }
    if (end == 0 || end != text.length()) {
      throw new TypeConversionException(
          "'%s' is not a duration (examples: 500ms, 30s, 1m30s, 2h)".formatted(text));
    }
    return Duration.ofNanos((long) nanos);
  }

  private static double nanosPer(String unit) {
    return switch (unit) {
      case "ns" -> 1;
      case "us", "µs" -> 1e3;
      case "ms" -> 1e6;
      case "s" -> 1e9;
      case "m" -> 60e9;
      default -> 3600e9;
    };
  }
}
