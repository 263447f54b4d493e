package io.crigate.policy.seed;

/**
 * What became of one setting of a seed system (multi-cri, CRI Resource Manager) in crigate.
 *
 * @param setting the setting as the seed system spells it, e.g. {@code --socket-path} or {@code policy.ReservedResources.CPU}
 * @param outcome whether it was carried over, dropped as meaningless, or refused
 * @param detail the crigate equivalent (mapped), or why it was dropped or refused
 */
public record SeedFinding(String setting, Outcome outcome, String detail) {

  public enum Outcome {
    /** Carried over: crigate does the same, under the name in {@code detail}. */
    MAPPED,
    /** Meaningless in crigate (e.g. something always on); accepted with a warning. */
    IGNORED,
    /** Asks for something crigate cannot do; a start with it is refused. */
    REFUSED
  }

  /** One line for a person: {@code --x: why}. */
  public String line() {
    return setting + ": " + detail;
  }
}
