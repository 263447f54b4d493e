package io.crigate.spi.adjust;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Kubernetes resource quantities ({@code 500m}, {@code 2}, {@code 1Gi}, {@code 1e3}) as plain numbers. */
public final class Quantity {

  private static final Pattern FORM = Pattern.compile("([+-]?[0-9]*\\.?[0-9]+)(?:([eE][+-]?[0-9]+)|(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?)");
  private static final Map<String, BigDecimal> SUFFIXES = Map.ofEntries(
      Map.entry("m", new BigDecimal("0.001")), Map.entry("k", BigDecimal.TEN.pow(3)),
      Map.entry("M", BigDecimal.TEN.pow(6)), Map.entry("G", BigDecimal.TEN.pow(9)),
      Map.entry("T", BigDecimal.TEN.pow(12)), Map.entry("P", BigDecimal.TEN.pow(15)),
      Map.entry("E", BigDecimal.TEN.pow(18)), Map.entry("Ki", BigDecimal.TWO.pow(10)),
      Map.entry("Mi", BigDecimal.TWO.pow(20)), Map.entry("Gi", BigDecimal.TWO.pow(30)),
      Map.entry("Ti", BigDecimal.TWO.pow(40)), Map.entry("Pi", BigDecimal.TWO.pow(50)),
      Map.entry("Ei", BigDecimal.TWO.pow(60)));

  private Quantity() {}

  /** CPU in millicores, rounded up as Kubernetes does ({@code 0.5} → 500, {@code 1} → 1000). */
  public static long milliCpu(String quantity) {
    return parse(quantity).movePointRight(3).setScale(0, RoundingMode.CEILING).longValueExact();
  }

  /** Bytes, rounded up ({@code 1Gi} → 1073741824). */
  public static long bytes(String quantity) {
    return parse(quantity).setScale(0, RoundingMode.CEILING).longValueExact();
  }

  /** @throws IllegalArgumentException naming the text when it is not a non-negative quantity */
  static BigDecimal parse(String quantity) {
    Matcher m = FORM.matcher(quantity.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("'%s' is not a Kubernetes quantity".formatted(quantity));
    }
    BigDecimal value = new BigDecimal(m.group(1));
    if (value.signum() < 0) {
      throw new IllegalArgumentException("'%s' is negative".formatted(quantity));
    }
    if (m.group(2) != null) {
      return value.scaleByPowerOfTen(Integer.parseInt(m.group(2).substring(1)));
    }
    return m.group(3) == null ? value : value.multiply(SUFFIXES.get(m.group(3)));
  }
}
