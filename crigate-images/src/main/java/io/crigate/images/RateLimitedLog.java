package io.crigate.images;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;

/**
 * Warns at most once per interval per key (a registry, say), so an unreachable registry behind
 * every ListImages does not flood the log; the next line says how many were held back.
 */
final class RateLimitedLog {

  private record Window(Instant start, int suppressed) {}

  private final Logger log;
  private final Clock clock;
  private final Duration interval;
  private final Map<String, Window> windows = new ConcurrentHashMap<>();

  RateLimitedLog(Logger log, Clock clock, Duration interval) {
    this.log = log;
    this.clock = clock;
    this.interval = interval;
  }

  /** Logs the message unless this key logged within the interval; returns whether it logged. */
  boolean warn(String key, String message) {
    Instant now = clock.instant();
    Window before = windows.get(key);
    Window after = windows.compute(key, (k, window) -> window == null || !now.isBefore(window.start().plus(interval))
        ? new Window(now, 0)
        : new Window(window.start(), window.suppressed() + 1));
    if (after.suppressed() > 0) {
      return false;
    }
    int held = before == null ? 0 : before.suppressed();
    log.warn(held == 0 ? message : message + " (" + held + " similar messages suppressed)");
    return true;
  }
}
