package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SlurmTimesTest {

  @ParameterizedTest(name = "''{0}''")
  @CsvSource(value = {
      "2026-11-22T03:15:00|2026-11-22T02:15:00Z",
      "  2026-11-22T03:15:00 |2026-11-22T02:15:00Z",
      "Unknown|",
      "N/A|",
      "None|",
      "|",
      "2026-13-40T99:00:00|"}, delimiter = '|')
  void parsesSlurmLocalTimesAndUnsetMarkers(String text, String expected) {
    Optional<Instant> parsed = SlurmTimes.parse(text == null ? "" : text, ZoneId.of("Europe/Berlin"));
    assertThat(parsed).isEqualTo(Optional.ofNullable(expected).map(Instant::parse));
  }
}
