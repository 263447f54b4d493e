package io.crigate.spi.config;

import java.time.temporal.ChronoUnit;

/** A duration whose older key held whole seconds: a bare number is seconds. */
public final class SecondsOrDuration extends NumberOrDuration {
  public SecondsOrDuration() {
    super(ChronoUnit.SECONDS);
  }
}
