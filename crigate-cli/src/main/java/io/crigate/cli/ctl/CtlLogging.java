package io.crigate.cli.ctl;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps library chatter (Netty's start-up debug lines, its harmless SO_KEEPALIVE warning on unix
 * sockets) out of a client's output: ctl reports its own errors, one line each.
 */
final class CtlLogging {

  private CtlLogging() {}

  static void quiet() {
    if (LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME) instanceof Logger root) {
      root.setLevel(Level.ERROR);
    }
  }
}
