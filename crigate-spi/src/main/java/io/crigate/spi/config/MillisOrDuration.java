package io.crigate.spi.config;

import java.time.temporal.ChronoUnit;

/** A duration whose older key held milliseconds ({@code pollIntervalMillis}): a bare number is milliseconds. */
public final class MillisOrDuration extends NumberOrDuration {
  public MillisOrDuration() {
    super(ChronoUnit.MILLIS);
  }
}
