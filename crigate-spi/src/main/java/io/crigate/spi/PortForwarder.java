package io.crigate.spi;

import java.io.InputStream;
import java.io.OutputStream;

/**
 * What a backend without a streaming server of its own implements so that crigate's streaming
 * server can serve PortForward for it: one call per forwarded connection, on a virtual thread that
 * is interrupted when the client goes away.
 */
@FunctionalInterface
public interface PortForwarder {

  /**
   * Joins the client's connection to {@code port} of the pod until either side ends, as
   * containerd's forwarder does.
   *
   * @param fromClient what the client sends; it ends when the client closes its side
   * @param toClient what the pod's port sends back; the caller closes it afterwards
   * @throws CrigateException when the port cannot be reached; the client sees the message
   */
  void forward(String podSandboxId, int port, InputStream fromClient, OutputStream toClient);
}
