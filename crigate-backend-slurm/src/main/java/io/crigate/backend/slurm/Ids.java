package io.crigate.backend.slurm;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Sandbox and container ids: 32 random bytes as 64 lowercase hex digits, like containerd's. */
final class Ids {

  private static final SecureRandom RANDOM = new SecureRandom();

  private Ids() {}

  static String next() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
