package io.crigate.core.dump;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ordered dump rules. Every rule whose regex matches the method is applied in order, so the
 * last matching rule decides; a method no rule matches is not dumped. Decisions are cached per
 * method, so a call the dump ignores costs one map lookup.
 */
public final class DumpRules {

  private final List<DumpRule> rules;
  private final Map<String, DumpLevel> levelByFullName = new ConcurrentHashMap<>();

  public DumpRules(List<DumpRule> rules) {
    this.rules = List.copyOf(rules);
  }

  /**
   * Parses a comma-separated list such as {@code off:.*,short:.*Pod.*,full:CreateContainer}, or CRI
   * Resource Manager's forms such as {@code reset,full:.*} ({@link DumpSpec}).
   */
  public static DumpRules parse(String spec) {
    return DumpSpec.parse(spec);
  }

  /** The same forms as {@link #parse(String)}, one entry per element (YAML's list form). */
  public static DumpRules parse(List<String> entries) {
    return DumpSpec.parse(entries);
  }

  public static DumpRules none() {
    return new DumpRules(List.of());
  }

  public List<DumpRule> rules() {
    return rules;
  }

  /** Whether any method is dumped at all; when not, the interceptor is not installed. */
  public boolean enabled() {
    return rules.stream().anyMatch(r -> r.level() != DumpLevel.OFF);
  }

  /** @param fullMethodName the gRPC name, {@code service/method} */
  /** Whether calls of this method are recorded at all. */
  public boolean records(String fullMethodName) {
    return levelFor(fullMethodName) != DumpLevel.OFF;
  }

  DumpLevel levelFor(String fullMethodName) {
    return levelByFullName.computeIfAbsent(fullMethodName, this::decide);
  }

  private DumpLevel decide(String fullMethodName) {
    String shortName = fullMethodName.substring(fullMethodName.lastIndexOf('/') + 1);
    DumpLevel level = DumpLevel.OFF;
    for (DumpRule rule : rules) {
      if (rule.matches(shortName, fullMethodName)) {
        level = rule.level();
      }
    }
    return level;
  }

  @Override
  public String toString() {
    return rules.toString();
  }
}
