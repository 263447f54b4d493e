package io.crigate.spi.config;

import java.util.OptionalInt;

/**
 * TCP port numbers as settings and flags give them: one to listen on may be 0 (the kernel picks a
 * free one), one to connect to may not ({@link #parse} from 1). Each caller words its own refusal,
 * naming its setting.
 */
public final class PortNumber {

  public static final int MAX = 65_535;

  private PortNumber() {}

  /** 0 (any free port) to 65535. */
  public static boolean listenable(long port) {
    return port >= 0 && port <= MAX;
  }

  /** {@code text} (surrounding blanks ignored) as a port from {@code lowest} to 65535; empty otherwise. */
  public static OptionalInt parse(String text, int lowest) {
    try {
      int port = Integer.parseInt(text.strip());
      return port >= lowest && port <= MAX ? OptionalInt.of(port) : OptionalInt.empty();
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }
}
