package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {

  @Test
  void logsOncePerKeyAndIntervalAndAgainAfterIt() {
    var clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    var log = new RateLimitedLog(LoggerFactory.getLogger(RateLimitedLogTest.class), clock, Duration.ofMinutes(1));

    assertThat(log.warn("r1", "down")).isTrue();
    assertThat(log.warn("r1", "down")).isFalse();
    assertThat(log.warn("r2", "down")).isTrue(); // another registry has its own window
    clock.advance(Duration.ofSeconds(59));
    assertThat(log.warn("r1", "down")).isFalse();
    clock.advance(Duration.ofSeconds(1));
    assertThat(log.warn("r1", "down")).isTrue();
  }
}
