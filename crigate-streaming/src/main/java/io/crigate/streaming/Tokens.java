package io.crigate.streaming;

import io.crigate.spi.CrigateException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Single-use, expiring URL tokens, like the kubelet streaming library's request cache: the token is
 * the only thing that authorizes a session, so it is 256 random bits, and it is gone once used.
 */
final class Tokens {

  /** As the kubelet's cache: beyond this many unused URLs, new requests are refused. */
  static final int MAX_IN_FLIGHT = 1000;
  private static final int TOKEN_BYTES = 32;

  private record Entry(IssuedSession request, Instant expires) {}

  private final Map<String, Entry> pending = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private final Duration ttl;
  private final Clock clock;

  Tokens(Duration ttl, Clock clock) {
    this.ttl = ttl;
    this.clock = clock;
  }

  String issue(IssuedSession request) {
    Instant now = clock.instant();
    pending.values().removeIf(entry -> !now.isBefore(entry.expires()));
    if (pending.size() >= MAX_IN_FLIGHT) {
      throw new CrigateException.Unavailable("%d streaming URLs are waiting for a client; try again later"
          .formatted(pending.size()));
    }
    byte[] bytes = new byte[TOKEN_BYTES];
    random.nextBytes(bytes);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    pending.put(token, new Entry(request, now.plus(ttl)));
    return token;
  }

  /** The request of a token issued for {@code kind}, once; empty when unknown, used, expired or of another kind. */
  Optional<IssuedSession> consume(String kind, String token) {
    Entry entry = pending.remove(token);
    if (entry == null || !clock.instant().isBefore(entry.expires()) || !entry.request().kind().equals(kind)) {
      return Optional.empty();
    }
    return Optional.of(entry.request());
  }

  int size() {
    return pending.size();
  }
}
