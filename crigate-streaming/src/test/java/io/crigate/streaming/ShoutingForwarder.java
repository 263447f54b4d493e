package io.crigate.streaming;

import io.crigate.spi.CrigateException;
import io.crigate.spi.PortForwarder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * A pod whose every port answers what it was sent, upper-cased and prefixed with the port, once the
 * client has sent all of it; port {@link #CLOSED} has nothing listening and port {@link #ECHO}
 * echoes as it reads, until the client leaves.
 */
final class ShoutingForwarder implements PortForwarder {

  static final int CLOSED = 13;
  static final int ECHO = 7;

  /** Counted down when an {@link #ECHO} forward returns, however its client ended. */
  final CountDownLatch echoEnded = new CountDownLatch(1);

  @Override
  public void forward(String podSandboxId, int port, InputStream fromClient, OutputStream toClient) {
    try {
      switch (port) {
        case CLOSED -> throw new CrigateException.Unavailable("nothing listens on port " + port);
        case ECHO -> {
          try {
            fromClient.transferTo(toClient);
          } finally {
            echoEnded.countDown();
          }
        }
        default -> {
          String sent = new String(fromClient.readAllBytes(), StandardCharsets.UTF_8);
          toClient.write((port + ":" + sent.toUpperCase(Locale.ROOT)).getBytes(StandardCharsets.UTF_8));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
