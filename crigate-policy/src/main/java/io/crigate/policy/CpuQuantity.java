package io.crigate.policy;

import io.crigate.spi.CrigateException;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * A Kubernetes CPU quantity ({@code 2}, {@code 1.5}, {@code 750m}) as the whole CPUs it occupies
 * once pinned: rounded up, as the kubelet rounds a fractional CPU reservation for its static policy.
 */
final class CpuQuantity {

  private CpuQuantity() {}

  static int wholeCpus(String field, String quantity) {
    String text = quantity.strip();
    try {
      BigDecimal cpus = text.endsWith("m")
          ? new BigDecimal(text.substring(0, text.length() - 1)).movePointLeft(3)
          : new BigDecimal(text);
      if (cpus.signum() < 0) {
        throw new NumberFormatException();
      }
      return cpus.setScale(0, RoundingMode.CEILING).intValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw new CrigateException.InvalidArgument(
          "%s: '%s' is not a CPU quantity (e.g. 2, 1.5 or 750m)".formatted(field, quantity));
    }
  }
}
