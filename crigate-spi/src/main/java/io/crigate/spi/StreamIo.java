package io.crigate.spi;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.Consumer;

/**
 * The client's side of one exec or attach session, as the streaming server hands it to a
 * {@link StreamingRuntime}. Streams the client did not ask for are empty (stdin) or discard what is
 * written (stdout, stderr); with a terminal, stderr is stdout, as on a real terminal.
 */
public interface StreamIo {

  /** Ends when the client closes its stdin, or at once when it did not ask for stdin. */
  InputStream stdin();

  OutputStream stdout();

  OutputStream stderr();

  /** Whether the client asked for a terminal. */
  boolean tty();

  /**
   * Calls {@code listener} with every terminal size the client sends, starting with the latest one
   * already received. Called on a thread of the server; the listener must not block.
   */
  void onResize(Consumer<TerminalSize> listener);
}
