package io.crigate.core.dump;

import io.crigate.spi.CrigateException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How much of one call the dump records. */
enum DumpLevel {
  /** Nothing; the call costs one cached lookup. */
  OFF,
  /** Time, method, latency, status code and the ids the call names. */
  SHORT,
  /** {@link #SHORT} plus the request and response messages, secrets redacted. */
  FULL;

  static DumpLevel parse(String name) {
    try {
      return valueOf(name.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new CrigateException.InvalidArgument("unknown dump level '%s' (known: %s)".formatted(name, known()));
    }
  }

  private static String known() {
    return Arrays.stream(values()).map(l -> l.name().toLowerCase(Locale.ROOT)).collect(Collectors.joining(", "));
  }
}
