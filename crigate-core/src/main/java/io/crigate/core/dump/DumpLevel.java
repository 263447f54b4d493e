package io.crigate.core.dump;

import io.crigate.spi.CrigateException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** How much of one call the dump records. */
enum DumpLevel {
  /** Nothing; the call costs one cached lookup. */
  OFF,
  /** Time, method, latency, status code and the ids the call names. */
  SHORT,
  /** {@link #SHORT} plus the request and response messages, secrets redacted. */
  FULL;

  /** CRI Resource Manager's names for the same levels, so its dump specifications read unchanged. */
  private static final Map<String, DumpLevel> ALIASES = Map.of("suppress", OFF, "name", SHORT, "long", FULL);

  static DumpLevel parse(String name) {
    String lower = name.trim().toLowerCase(Locale.ROOT);
    DumpLevel alias = ALIASES.get(lower);
    if (alias != null) {
      return alias;
    }
    try {
      return valueOf(lower.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new CrigateException.InvalidArgument("unknown dump level '%s' (known: %s, and %s)"
          .formatted(name, known(), String.join(", ", new java.util.TreeSet<>(ALIASES.keySet()))));
    }
  }

  private static String known() {
    return Arrays.stream(values()).map(l -> l.name().toLowerCase(Locale.ROOT)).collect(Collectors.joining(", "));
  }
}
