package io.crigate.spi;

import java.util.regex.Pattern;

/**
 * Which names mark a value as secret (an environment variable, an annotation or label key, a
 * command-line flag): one definition for the dump's redaction and for what backends seal at rest.
 * It errs on the side of hiding: {@code AUTHOR} or {@code KEYBOARD} are hidden too, which costs a
 * dump reader a value, while a missed {@code DB_PASSWD} would cost a credential.
 */
public final class SecretNames {

  /** Matched anywhere in a name, in any case: DB_PASSWORD, PASSWD, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, ... */
  public static final String DEFAULT = "(?i)PASS|TOKEN|SECRET|KEY|CREDENTIAL|AUTH";

  private static final Pattern PATTERN = Pattern.compile(DEFAULT);

  private SecretNames() {}

  /** Whether {@code name} looks like the name of a secret under {@link #DEFAULT}. */
  public static boolean looksSecret(String name) {
    return PATTERN.matcher(name).find();
  }
}
