package io.crigate.ttrpc.transport;

import java.util.concurrent.ScheduledExecutorService;

/**
 * Where a ttrpc connection writes its frames: a unix socket, or one logical connection of a
 * multiplexed socket (NRI). Implementations must write each frame whole, even when several threads
 * send at once.
 */
public interface FrameTransport {

  void send(Frame frame);

  /** Closes the connection; {@code reason} is logged by the implementation. */
  void close(String reason);

  /** Runs deadline timers; the transport's event loop. */
  ScheduledExecutorService timers();
}
