package io.crigate.backend.slurm;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;

/** Slurm prints times as local ISO date-times without zone, or Unknown/N/A/None when unset. */
final class SlurmTimes {

  private SlurmTimes() {}

  static Instant parse(String text, ZoneId zone) {
    try {
      return LocalDateTime.parse(text.strip()).atZone(zone).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
