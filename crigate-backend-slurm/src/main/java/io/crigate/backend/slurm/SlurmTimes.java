package io.crigate.backend.slurm;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Slurm prints times as local ISO date-times without zone, or Unknown/N/A/None when unset. */
final class SlurmTimes {

  private SlurmTimes() {}

  /** The time, or empty when Slurm printed one of its unset markers (or anything else that is not a time). */
  static Optional<Instant> parse(String text, ZoneId zone) {
    String value = text.strip();
    // Most jobs of a poll have an unset end (and queued ones an unset start): answer those without
    // the cost of a thrown parse exception each.
    if (value.isEmpty() || !Character.isDigit(value.charAt(0))) {
      return Optional.empty();
    }
    try {
      return Optional.of(LocalDateTime.parse(value).atZone(zone).toInstant());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
