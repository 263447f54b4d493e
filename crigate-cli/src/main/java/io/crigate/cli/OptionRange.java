package io.crigate.cli;

import io.crigate.spi.CrigateException;
import java.math.BigDecimal;

/**
 * Range checks for numeric options that picocli parses but cannot bound, worded alike in every
 * command: {@code --seeds 0: must be at least 1}. The commands report the InvalidArgument as a usage
 * error (exit 2).
 */
final class OptionRange {

  private OptionRange() {}

  static void atLeast(String option, double value, double least) {
    if (!(value >= least)) {
      throw new CrigateException.InvalidArgument("%s %s: must be at least %s".formatted(option, plain(value), plain(least)));
    }
  }

  static void above(String option, double value, double bound) {
    if (!(value > bound)) {
      throw new CrigateException.InvalidArgument("%s %s: must be above %s".formatted(option, plain(value), plain(bound)));
    }
  }

  /** 1 rather than 1.0, so that an integer option reads as given. */
  private static String plain(double value) {
    return Double.isFinite(value) ? BigDecimal.valueOf(value).stripTrailingZeros().toPlainString() : Double.toString(value);
  }
}
