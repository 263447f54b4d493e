package io.crigate.cli.ctl;

import io.crigate.spi.CrigateException.InvalidArgument;
import io.crigate.spi.CrigateException.NotFound;
import java.util.Collection;
import java.util.List;

/** Expands the short id a user typed (as {@code ps} and {@code pods} print them) to the full id. */
final class IdPrefix {

  private IdPrefix() {}

  /**
   * Returns the one id in {@code known} that equals or starts with {@code prefix}; an exact match
   * wins over longer ids sharing it.
   */
  static String resolve(String kind, String prefix, Collection<String> known) {
    if (prefix.isEmpty()) {
      throw new InvalidArgument("empty %s id".formatted(kind));
    }
    if (known.contains(prefix)) {
      return prefix;
    }
    List<String> matches = known.stream().filter(id -> id.startsWith(prefix)).sorted().toList();
    return switch (matches.size()) {
      case 0 -> throw new NotFound("no %s id starts with %s".formatted(kind, prefix));
      case 1 -> matches.getFirst();
      default ->
          throw new InvalidArgument(
              "%s id prefix %s is ambiguous, it matches %s"
                  .formatted(kind, prefix, String.join(", ", matches)));
    };
  }
}
