package io.crigate.hooks;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes resource quantity ({@code 500m}, {@code 2Gi}, {@code 1e3}) as an exact decimal.
 * Annotations arrive as text from the kubelet; fabric8 would pull the whole API model into every
 * mode for this one parser.
 */
final class Quantity {

  private static final Pattern FORMAT = Pattern.compile("([+-]?[0-9]+(?:\\.[0-9]*)?|[+-]?\\.[0-9]+)([a-zA-Z]*|[eE][+-]?[0-9]+)");
  private static final Map<String, BigDecimal> SUFFIXES = Map.ofEntries(
      Map.entry("", BigDecimal.ONE),
      Map.entry("n", new BigDecimal("1e-9")), Map.entry("u", new BigDecimal("1e-6")),
      Map.entry("m", new BigDecimal("1e-3")), Map.entry("k", new BigDecimal("1e3")),
      Map.entry("M", new BigDecimal("1e6")), Map.entry("G", new BigDecimal("1e9")),
      Map.entry("T", new BigDecimal("1e12")), Map.entry("P", new BigDecimal("1e15")),
      Map.entry("E", new BigDecimal("1e18")),
      Map.entry("Ki", BigDecimal.valueOf(1L << 10)), Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
      Map.entry("Gi", BigDecimal.valueOf(1L << 30)), Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
      Map.entry("Pi", BigDecimal.valueOf(1L << 50)), Map.entry("Ei", BigDecimal.valueOf(1L << 60)));

  private Quantity() {}

  /** The quantity's value; {@link IllegalArgumentException} names what is wrong with the text. */
  static BigDecimal parse(String text) {
    Matcher m = FORMAT.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("'%s' is not a quantity".formatted(text));
    }
    BigDecimal number = new BigDecimal(m.group(1));
    String suffix = m.group(2);
    if (!suffix.isEmpty() && (suffix.charAt(0) == 'e' || suffix.charAt(0) == 'E')) {
      return number.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1)));
    }
    BigDecimal multiplier = SUFFIXES.get(suffix);
    if (multiplier == null) {
      throw new IllegalArgumentException("'%s' has an unknown suffix '%s'".formatted(text, suffix));
    }
    return number.multiply(multiplier);
  }

  /** The value as a whole number, rounded up as Kubernetes' {@code Value()} does. */
  static long whole(String text) {
    return parse(text).setScale(0, RoundingMode.CEILING).longValueExact();
  }
}
