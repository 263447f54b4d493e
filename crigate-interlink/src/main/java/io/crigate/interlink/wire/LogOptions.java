package io.crigate.interlink.wire;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * kubectl's log options as interLink forwards them. Zero means unset, as in Go; a SinceTime of Go's
 * zero time ({@code 0001-01-01T00:00:00Z}) is unset too.
 */
public record LogOptions(
    @JsonProperty("Tail") int tail,
    @JsonProperty("Bytes") @JsonAlias("limitBytes") long bytes,
    @JsonProperty("Timestamps") boolean timestamps,
    @JsonProperty("Follow") boolean follow,
    @JsonProperty("Previous") boolean previous,
    @JsonProperty("SinceSeconds") long sinceSeconds,
    @JsonProperty("SinceTime") String sinceTime) {

  public static final LogOptions NONE = new LogOptions(0, 0, false, false, false, 0, null);

  private static final Instant GO_ZERO_TIME = Instant.parse("0001-01-01T00:00:00Z");

  /** The earliest record to return, or null for all. */
  public Instant since(Instant now) {
    if (sinceSeconds > 0) {
      return now.minusSeconds(sinceSeconds);
    }
    Instant at = sinceTimeInstant();
    return at == null || !at.isAfter(GO_ZERO_TIME) ? null : at;
  }

  /** Whether SinceTime is set: Go writes its zero time for "unset". */
  public boolean hasSinceTime() {
    Instant at = sinceTimeInstant();
    return at != null && at.isAfter(GO_ZERO_TIME);
  }

  LogOptions validated() {
    if (tail < 0) {
      throw new BadRequest("Opts.Tail", "must not be negative");
    }
    if (bytes < 0) {
      throw new BadRequest("Opts.Bytes", "must not be negative");
    }
    if (sinceSeconds < 0) {
      throw new BadRequest("Opts.SinceSeconds", "must not be negative");
    }
    sinceTimeInstant();
    return this;
  }

  private Instant sinceTimeInstant() {
    if (sinceTime == null || sinceTime.isEmpty()) {
      return null;
    }
    try {
      return Instant.parse(sinceTime);
    } catch (DateTimeParseException e) {
      throw new BadRequest("Opts.SinceTime", "'%s' is not an RFC 3339 time".formatted(sinceTime));
    }
  }
}
