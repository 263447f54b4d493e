package io.crigate.core.dump;

import io.crigate.spi.SecretNames;
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

  /** {@link SecretNames#DEFAULT}: the same names the backends seal at rest. */
  public static final String DEFAULT_REDACT_ENV = SecretNames.DEFAULT;

  public static DumpSettings off() {
    return new DumpSettings(DumpRules.none(), Optional.empty(), DumpFormat.YAML,
        Pattern.compile(DEFAULT_REDACT_ENV));
  }
}
