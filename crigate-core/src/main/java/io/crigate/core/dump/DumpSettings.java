package io.crigate.core.dump;

import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Configuration of the message dump.
 *
 * @param rules which methods are dumped and how much
 * @param file where records go; empty means standard error
 * @param format YAML documents or JSON lines
 * @param redactEnv container environment variables whose name matches (anywhere in the name) have
 *     their value replaced in the dump
 */
public record DumpSettings(DumpRules rules, Optional<Path> file, DumpFormat format, Pattern redactEnv) {

  /** Names like DB_PASSWORD, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, in any case. */
  public static final String DEFAULT_REDACT_ENV = "(?i)PASSWORD|TOKEN|SECRET|KEY";

  public static DumpSettings off() {
    return new DumpSettings(DumpRules.none(), Optional.empty(), DumpFormat.YAML,
        Pattern.compile(DEFAULT_REDACT_ENV));
  }
}
