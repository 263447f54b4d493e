package io.crigate.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one way crigate reads a duration, in configuration and on the command line: Go's notation as
 * Kubernetes and crictl users write it ({@code 500ms}, {@code 30s}, {@code 1m30s}, {@code 2h}), or
 * ISO-8601 ({@code PT5S}).
 */
public final class Durations {

  private static final Pattern TERM = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

  private Durations() {}

  /** The duration {@code text} spells, or empty when it spells none. */
  public static Optional<Duration> parse(String text) {
    if (text.startsWith("P") || text.startsWith("-P")) {
      try {
        return Optional.of(Duration.parse(text));
      } catch (DateTimeParseException e) {
        return Optional.empty();
      }
    }
    Matcher term = TERM.matcher(text);
    double nanos = 0;
    int end = 0;
    while (term.lookingAt()) {
      nanos += Double.parseDouble(term.group(1)) * nanosPer(term.group(2));
      end = term.end();
      term.region(end, text.length());
    }
    return end == 0 || end != text.length() ? Optional.empty() : Optional.of(Duration.ofNanos((long) nanos));
  }

  /**
   * A positive duration for setting {@code name}.
   *
   * @throws CrigateException.InvalidArgument naming the setting and the accepted forms
   */
  public static Duration positive(String name, String text) {
    return parse(text).filter(duration -> !duration.isZero() && !duration.isNegative())
        .orElseThrow(() -> new CrigateException.InvalidArgument(
            "%s '%s' is not a positive duration such as 500ms, 5s, 1m30s or PT5S".formatted(name, text)));
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
