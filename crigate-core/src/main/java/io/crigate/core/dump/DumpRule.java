package io.crigate.core.dump;

import io.crigate.spi.CrigateException;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One {@code level:regex} entry of the dump specification. The regex must match a whole method
 * name, either the short one ({@code CreateContainer}) or the full gRPC one
 * ({@code runtime.v1.RuntimeService/CreateContainer}).
 */
public record DumpRule(DumpLevel level, Pattern methods) {

  /** Parses {@code level:regex}; the first {@code :} separates the level. */
  public static DumpRule parse(String spec) {
    int colon = spec.indexOf(':');
    if (colon < 0) {
      throw new CrigateException.InvalidArgument(
          "dump rule '%s' is not level:regex (e.g. full:CreateContainer)".formatted(spec));
    }
    return of(DumpLevel.parse(spec.substring(0, colon)), spec.substring(colon + 1), spec);
  }

  /**
   * A rule for {@code methods} at {@code level}. A lone {@code *} means every method, as CRI
   * Resource Manager writes it (it is not a valid regex on its own).
   */
  static DumpRule of(DumpLevel level, String methods, String spec) {
    String regex = methods.equals("*") ? ".*" : methods;
    try {
      return new DumpRule(level, Pattern.compile(regex));
    } catch (PatternSyntaxException e) {
      throw new CrigateException.InvalidArgument(
          "dump rule '%s' has an invalid regex: %s".formatted(spec, e.getDescription()));
    }
  }

  boolean matches(String shortName, String fullName) {
    return methods.matcher(shortName).matches() || methods.matcher(fullName).matches();
  }

  @Override
  public String toString() {
    return level.name().toLowerCase(java.util.Locale.ROOT) + ":" + methods.pattern();
  }
}
