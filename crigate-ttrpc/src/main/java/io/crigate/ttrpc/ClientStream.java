package io.crigate.ttrpc;

import java.util.Optional;

/** A streaming call as its client sees it. */
public interface ClientStream {

  /** Sends one message; only for methods whose client side streams. */
  void send(byte[] message);

  /** Tells the server that no more messages follow. */
  void closeSend();

  /**
   * The server's next message, or empty once the call ended with OK. Blocks until then.
   *
   * @throws TtrpcException when the call ended with another status (deadline, error, closed connection)
   */
  Optional<byte[]> receive() throws InterruptedException;
}
