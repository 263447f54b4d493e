package io.crigate.core.dump;

import io.crigate.spi.CrigateException;
import java.util.Locale;

/** How dumped calls are written: one YAML document or one JSON line per call. */
public enum DumpFormat {
  YAML,
  JSON;

  public static DumpFormat parse(String name) {
    return switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "yaml" -> YAML;
      case "json" -> JSON;
      default -> throw new CrigateException.InvalidArgument(
          "unknown dump format '%s' (known: yaml, json)".formatted(name));
    };
  }
}
