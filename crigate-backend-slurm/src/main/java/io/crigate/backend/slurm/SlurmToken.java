package io.crigate.backend.slurm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.time.Instant;
import java.util.Base64;

/**
 * Checks a slurmrestd JWT before it is sent. slurmrestd 22.05 reports a token slurmctld refuses
 * not as 401 but as HTTP 500 with the same errors an outage gives ("Zero Bytes were transmitted or
 * received"), so the refusals crigate can recognise itself, an empty or malformed token and an
 * expired one, are refused here as PERMISSION_DENIED instead of passing for an outage. The
 * signature is not checked: only slurmctld holds the key.
 */
final class SlurmToken {

  private static final ObjectMapper JSON = new ObjectMapper();

  private SlurmToken() {}

  /** @return {@code token} when it is a JWT whose {@code exp}, if any, is after {@code now} */
  static String usable(String token, String user, Instant now) {
    String[] parts = token.split("\\.", -1);
    if (token.isEmpty() || parts.length != 3) {
      throw refused(user, "it is not a JWT");
    }
    JsonNode claims;
    try {
      claims = JSON.readTree(Base64.getUrlDecoder().decode(parts[1]));
    } catch (IllegalArgumentException | IOException e) {
      throw refused(user, "its claims cannot be read");
    }
    JsonNode exp = claims.path("exp");
    if (exp.canConvertToLong() && !Instant.ofEpochSecond(exp.asLong()).isAfter(now)) {
      throw refused(user, "it expired at " + Instant.ofEpochSecond(exp.asLong()));
    }
    return token;
  }

  /** Never shows the token: a message reaches the kubelet's log. */
  private static CrigateException.PermissionDenied refused(String user, String why) {
    return new CrigateException.PermissionDenied("slurmrestd token for user %s is refused: %s; renew it (scontrol token)"
        .formatted(user, why));
  }
}
