package io.crigate.cli.ctl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

class GoDurationTest {

  record Case(String text, Duration expected) {
    @Override
    public String toString() {
      return text;
    }
  }

  static Stream<Case> durations() {
    return Stream.of(
        new Case("500ms", Duration.ofMillis(500)),
        new Case("30s", Duration.ofSeconds(30)),
        new Case("2m", Duration.ofMinutes(2)),
        new Case("1h", Duration.ofHours(1)),
        // 1m30s = 90 s
        new Case("1m30s", Duration.ofSeconds(90)),
        // 1.5s = 1500 ms
        new Case("1.5s", Duration.ofMillis(1500)),
        new Case("250us", Duration.ofNanos(250_000)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("durations")
  void parsesGoDurations(Case c) {
    assertThat(new GoDuration().convert(c.text())).isEqualTo(c.expected());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"", "30", "s", "10x", "5s junk", "-3s"})
  void rejectsNonDurations(String text) {
    assertThatThrownBy(() -> new GoDuration().convert(text))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("not a duration");
  }
}
