package io.crigate.ttrpc;

import java.util.Optional;

/** A streaming call as its handler sees it. */
public interface ServerStream {

  CallContext context();

  /** The client's next message, or empty once the client closed its side. Blocks until then. */
  Optional<byte[]> receive() throws InterruptedException;

  /** Sends one message to the client as a data frame. */
  void send(byte[] message);
}
