package io.crigate.interlink.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;

/**
 * Checks {@code Authorization: Bearer <token>} against a token file, re-read on every check so the
 * token can rotate (as interLink's VK token file does). The token is never logged or echoed.
 */
public final class BearerToken {

  private final Path file;

  public BearerToken(Path file) {
    this.file = file;
  }

  public boolean accepts(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    byte[] sent = authorization.substring(7).strip().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(sent, expected());
  }

  /** The header value a client sends. */
  public String header() {
    return "Bearer " + new String(expected(), StandardCharsets.UTF_8);
  }

  private byte[] expected() {
    try {
      String token = Files.readString(file).strip();
      if (token.isEmpty()) {
        throw new IllegalStateException("token file " + file + " is empty");
      }
      return token.getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read token file " + file, e);
    }
  }

  @Override
  public String toString() {
    return "BearerToken[" + file + "]";
  }
}
