package io.crigate.backend.slurm;

import java.util.List;
import java.util.stream.Collectors;

/**
 * POSIX single-quote escaping. Inside single quotes a shell interprets nothing, so the only byte
 * that needs care is the quote itself, which closes, emits an escaped quote and reopens. Every
 * value crigate writes into a job script or an SSH command line goes through here.
 */
final class ShellQuote {

  private ShellQuote() {}

  static String quote(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }

  /** One command line whose words a shell splits back into exactly {@code argv}. */
  static String join(List<String> argv) {
    return argv.stream().map(ShellQuote::quote).collect(Collectors.joining(" "));
  }
}
