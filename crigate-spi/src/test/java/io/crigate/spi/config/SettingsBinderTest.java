package io.crigate.spi.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.crigate.spi.CrigateException;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SettingsBinderTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  record Section(String name, Integer count, Duration timeout,
      @JsonAlias("ttlSeconds") @JsonDeserialize(using = SecondsOrDuration.class) Duration ttl,
      @JsonAlias("pollMillis") @JsonDeserialize(using = MillisOrDuration.class) Duration poll,
      List<Inner> inner) {}

  record Inner(String key, Duration every) {}

  private static Section bind(String json) throws Exception {
    return SettingsBinder.bind(JSON.readTree(json), Section.class, "outer.section");
  }

  @Test
  void bindsEveryKindOfValueAndGoDurations() throws Exception {
    Section section = bind("""
        {"name": "a", "count": 3, "timeout": "1m30s", "ttl": "500ms", "inner": [{"key": "k", "every": "PT2S"}]}""");

    assertThat(section).isEqualTo(new Section("a", 3, Duration.ofSeconds(90), Duration.ofMillis(500), null,
        List.of(new Inner("k", Duration.ofSeconds(2)))));
  }

  @Test
  void anOldSecondsKeyStillTakesABareNumber() throws Exception {
    assertThat(bind("{\"ttlSeconds\": 30}").ttl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(bind("{\"ttlSeconds\": \"2m\"}").ttl()).isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void anOldMillisKeyStillTakesABareNumberOfMilliseconds() throws Exception {
    assertThat(bind("{\"pollMillis\": 300}").poll()).isEqualTo(Duration.ofMillis(300));
    assertThat(bind("{\"poll\": \"2s\"}").poll()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aMissingSectionBindsWithEveryKeyAbsent() {
    assertThat(SettingsBinder.bind(MissingNode.getInstance(), Section.class, "x"))
        .isEqualTo(new Section(null, null, null, null, null, null));
  }

  record Case(String name, String json, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> invalid() {
    return Stream.of(
        new Case("unknown key", "{\"nmae\": \"a\"}",
            "unknown outer.section key 'nmae' (known: name, count, timeout, ttl, poll, inner)"),
        new Case("unknown nested key", "{\"inner\": [{\"key\": \"k\"}, {\"kye\": \"k\"}]}",
            "unknown outer.section.inner[1] key 'kye' (known: key, every)"),
        new Case("duration without unit", "{\"timeout\": \"5\"}",
            "'outer.section.timeout' must be a positive duration such as 500ms, 5s, 1m30s or PT5S, not '5'"),
        new Case("bare number for a new duration key", "{\"timeout\": 5}", "'outer.section.timeout' must be a positive duration"),
        new Case("zero duration", "{\"inner\": [{\"every\": \"0s\"}]}", "'outer.section.inner[0].every' must be a positive duration"),
        new Case("zero seconds under the old key", "{\"ttlSeconds\": 0}", "'outer.section.ttl' must be a positive duration such as 500ms, 5s, 1m30s or PT5S, not '0'"),
        new Case("fraction for a whole number", "{\"count\": 1.5}", "'outer.section.count' must be a whole number"),
        new Case("text for a whole number", "{\"count\": \"7\"}", "'outer.section.count' must be a whole number"),
        new Case("mapping for a list", "{\"inner\": {\"key\": \"k\"}}", "'outer.section.inner' must be a list"),
        new Case("list for a string", "{\"name\": [\"a\"]}", "'outer.section.name' must be a string"),
        new Case("scalar for the section", "\"on\"", "'outer.section' must be a mapping"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void everyProblemNamesTheKeyByItsPath(Case c) {
    assertThatThrownBy(() -> bind(c.json()))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining(c.message());
  }

  @Test
  void theTopLevelIsNamedAsSuch() {
    assertThatThrownBy(() -> SettingsBinder.bind(JSON.readTree("{\"sokcet\": 1}"), Inner.class, ""))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessage("unknown top-level key 'sokcet' (known: key, every)");
  }
}
