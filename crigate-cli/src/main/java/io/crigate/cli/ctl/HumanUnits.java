package io.crigate.cli.ctl;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;

/** The short, rounded ages, sizes and ids that list tables show. */
final class HumanUnits {

  /** crictl shows 13 characters of an id; that is plenty to stay unique on one node. */
  static final int SHORT_ID_LENGTH = 13;

  private static final String[] DECIMAL_UNITS = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};

  private HumanUnits() {}

  /** "3 minutes ago": whole units, rounded down, switching unit once the count reaches two. */
  static String ago(Duration age) {
    long seconds = Math.max(0, age.toSeconds());
    long minutes = age.toMinutes();
    long hours = Math.round(age.toMinutes() / 60.0);
    String text;
    if (seconds < 1) {
      text = "Less than a second";
    } else if (seconds == 1) {
      text = "1 second";
    } else if (seconds < 60) {
      text = seconds + " seconds";
    } else if (minutes == 1) {
      text = "About a minute";
    } else if (minutes < 60) {
      text = minutes + " minutes";
    } else if (hours == 1) {
      text = "About an hour";
    } else if (hours < 48) {
      text = hours + " hours";
    } else if (hours < 24 * 7 * 2) {
      text = hours / 24 + " days";
    } else if (hours < 24 * 30 * 2) {
      text = hours / 24 / 7 + " weeks";
    } else if (hours < 24 * 365 * 2) {
      text = hours / 24 / 30 + " months";
    } else {
      text = hours / 24 / 365 + " years";
    }
    return text + " ago";
  }

  /** Decimal units with three significant digits: 1234567 bytes is "1.23MB". */
  static String size(long bytes) {
    double value = bytes;
    int unit = 0;
    while (value >= 1000 && unit < DECIMAL_UNITS.length - 1) {
      value /= 1000;
      unit++;
    }
    BigDecimal rounded = new BigDecimal(value).round(new MathContext(3)).stripTrailingZeros();
    return rounded.toPlainString() + DECIMAL_UNITS[unit];
  }

  /** The id without its {@code sha256:} algorithm, cut to 13 characters unless {@code full}. */
  static String id(String id, boolean full) {
    String bare = id.startsWith("sha256:") ? id.substring("sha256:".length()) : id;
    return full || bare.length() <= SHORT_ID_LENGTH ? bare : bare.substring(0, SHORT_ID_LENGTH);
  }
}
