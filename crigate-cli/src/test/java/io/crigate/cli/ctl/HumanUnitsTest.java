package io.crigate.cli.ctl;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class HumanUnitsTest {

  record AgeCase(String name, Duration age, String expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<AgeCase> ages() {
    return Stream.of(
        new AgeCase("under a second", Duration.ofMillis(999), "Less than a second ago"),
        new AgeCase("clock skew: created in the future", Duration.ofSeconds(-5), "Less than a second ago"),
        new AgeCase("one second", Duration.ofSeconds(1), "1 second ago"),
        new AgeCase("59 seconds", Duration.ofSeconds(59), "59 seconds ago"),
        new AgeCase("one minute and a bit", Duration.ofSeconds(119), "About a minute ago"),
        new AgeCase("two minutes", Duration.ofMinutes(2), "2 minutes ago"),
        // 89 min rounds to 1 hour
        new AgeCase("about an hour", Duration.ofMinutes(89), "About an hour ago"),
        // 90 min rounds to 2 hours
        new AgeCase("two hours", Duration.ofMinutes(90), "2 hours ago"),
        new AgeCase("47 hours", Duration.ofHours(47), "47 hours ago"),
        // 48 h = 2 days
        new AgeCase("two days", Duration.ofHours(48), "2 days ago"),
        // 15 days: past 2 weeks = 336 h, 360 h / 24 / 7 = 2
        new AgeCase("two weeks", Duration.ofDays(15), "2 weeks ago"),
        // 61 days: past 2*30 days, 61 / 30 = 2
        new AgeCase("two months", Duration.ofDays(61), "2 months ago"),
        // 800 days / 365 = 2
        new AgeCase("two years", Duration.ofDays(800), "2 years ago"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ages")
  void agesReadLikeCrictl(AgeCase c) {
    assertThat(HumanUnits.ago(c.age())).isEqualTo(c.expected());
  }

  record SizeCase(String name, long bytes, String expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<SizeCase> sizes() {
    return Stream.of(
        new SizeCase("zero", 0, "0B"),
        new SizeCase("bytes", 999, "999B"),
        // 1000 bytes is 1 kB in decimal units
        new SizeCase("one kilobyte", 1000, "1kB"),
        // 1089495 / 1e6 = 1.089495, three significant digits
        new SizeCase("demo image", 1_089_495, "1.09MB"),
        new SizeCase("trailing zeros dropped", 1_500_000, "1.5MB"),
        // 123456789012 / 1e9 = 123.456...
        new SizeCase("gigabytes", 123_456_789_012L, "123GB"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sizes")
  void sizesUseThreeSignificantDigits(SizeCase c) {
    assertThat(HumanUnits.size(c.bytes())).isEqualTo(c.expected());
  }

  record IdCase(String name, String id, boolean full, String expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<IdCase> ids() {
    String id = "3a746010ccb6ef95ad23a0747286c2400dc3c7496c76580a4f5a868415166de1";
    return Stream.of(
        new IdCase("truncated to 13", id, false, "3a746010ccb6e"),
        new IdCase("full", id, true, id),
        new IdCase("sha256 prefix dropped", "sha256:" + id, false, "3a746010ccb6e"),
        new IdCase("short id unchanged", "abc", false, "abc"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ids")
  void idsAreShortened(IdCase c) {
    assertThat(HumanUnits.id(c.id(), c.full())).isEqualTo(c.expected());
  }
}
