package io.crigate.hooks;

import io.crigate.spi.CrigateException;
import java.util.Locale;

/**
 * What a hook's failure does to the CRI call. Koordinator's words ({@code Ignore}, {@code Fail})
 * are accepted next to ours, so a runtime proxy config carries over.
 */
public enum FailurePolicy {
  /** Log the failure, drop that hook's changes, keep going: the call proceeds. */
  FAIL_OPEN,
  /** Reject the call with the hook's error: nothing is created with half-applied settings. */
  FAIL_CLOSED;

  public static FailurePolicy parse(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "fail-open", "ignore" -> FAIL_OPEN;
      case "fail-closed", "fail" -> FAIL_CLOSED;
      default -> throw new CrigateException.InvalidArgument(
          "unknown failurePolicy '%s'; use fail-open (Ignore) or fail-closed (Fail)".formatted(value));
    };
  }
}
