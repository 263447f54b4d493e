package io.crigate.core.dump;

import io.crigate.spi.CrigateException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads a comma-separated dump specification, crigate's {@code level:regex} entries together with
 * the forms of CRI Resource Manager's {@code -dump} flag, so its command lines work unchanged:
 * <ul>
 *   <li>{@code reset} forgets every rule before it ({@code reset,full:.*});
 *   <li>{@code disable} turns dumping off until a later {@code enable};
 *   <li>an entry without a level takes the level of the entry before it
 *       ({@code off:Version,.*List.*} silences both);
 *   <li>the levels {@code suppress}, {@code name} and {@code long} are {@code off}, {@code short}
 *       and {@code full}, and {@code *} alone matches every method.
 * </ul>
 * CRI Resource Manager's {@code debug} (copy dumps to the debug log) is refused: crigate's dump has
 * its own file, named by {@code --dump-file}.
 */
final class DumpSpec {

  private final List<DumpRule> rules = new ArrayList<>();
  private DumpLevel previousLevel;
  private boolean disabled;

  private DumpSpec() {}

  static DumpRules parse(String spec) {
    return parse(List.of(spec.split(",")));
  }

  /**
   * The same forms one entry per element, as the YAML list of {@code dump.rules} gives them; an
   * element is never split, so a regex there may contain commas ({@code full:.{1,3}Pod}).
   */
  static DumpRules parse(List<String> entries) {
    DumpSpec reader = new DumpSpec();
    for (String entry : entries) {
      String trimmed = entry.trim();
      if (!trimmed.isEmpty()) {
        reader.add(trimmed);
      }
    }
    return reader.disabled ? DumpRules.none() : new DumpRules(reader.rules);
  }

  private void add(String entry) {
    switch (entry.toLowerCase(Locale.ROOT)) {
      case "reset" -> {
        rules.clear();
        previousLevel = null;
        disabled = false;
      }
      case "disable" -> disabled = true;
      case "enable" -> disabled = false;
      case "debug" -> throw new CrigateException.InvalidArgument(
          "dump entry 'debug' (copy dumps into the debug log) has no crigate equivalent; "
              + "dumps go to their own file, --dump-file");
      default -> rules.add(rule(entry));
    }
  }

  private DumpRule rule(String entry) {
    int colon = entry.indexOf(':');
    if (colon >= 0) {
      DumpRule rule = DumpRule.parse(entry);
      previousLevel = rule.level();
      return rule;
    }
    if (previousLevel == null) {
      throw new CrigateException.InvalidArgument(
          "dump rule '%s' is not level:regex (e.g. full:CreateContainer), and no rule before it gives a level"
              .formatted(entry));
    }
    return DumpRule.of(previousLevel, entry, entry);
  }
}
