package io.crigate.cli.migrate;

/**
 * One command-line flag of a seed system and what it becomes in crigate.
 *
 * @param name the flag without dashes, as Go's flag package knows it (it takes {@code -name} and {@code --name})
 * @param seed the system that documents it
 * @param takesValue whether it consumes a value ({@code -policy static}); booleans only take {@code =value}
 * @param multiCriOnly whether seeing it means the command line is multi-cri's (which always runs an adapter)
 * @param action what it does to the translation
 */
record SeedFlag(String name, String seed, boolean takesValue, boolean multiCriOnly, Action action) {

  static final String MULTI_CRI = "multi-cri";
  static final String CRI_RM = "CRI Resource Manager";

  /** A flag of {@code seed}; every multi-cri flag marks the command line as multi-cri's. */
  static SeedFlag of(String seed, String name, boolean takesValue, Action action) {
    return new SeedFlag(name, seed, takesValue, seed.equals(MULTI_CRI), action);
  }

  /** A flag that has lost its meaning in crigate: accepted with one warning giving {@code reason}. */
  static Action warned(String reason) {
    return (spelled, value, translation) -> translation.findings.ignored(spelled, reason);
  }

  /** A flag crigate cannot honour: refused, giving {@code reason}. */
  static Action refused(String reason) {
    return (spelled, value, translation) -> translation.findings.refused(spelled, reason);
  }

  /** Applies one occurrence: {@code spelled} is the flag as written, {@code value} its value (or null). */
  @FunctionalInterface
  interface Action {
    void apply(String spelled, String value, Translation translation);
  }
}
