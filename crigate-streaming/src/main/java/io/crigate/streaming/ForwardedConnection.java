package io.crigate.streaming;

import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection of a port forward, whichever protocol carries it: the backend's forwarder runs on
 * a virtual thread between the client's data stream and the pod's port. A failure is written on the
 * connection's error stream, worded as the kubelet words it, and both streams are closed at the end,
 * which is what tells client-go's forwarder that this connection is over.
 */
final class ForwardedConnection {

  private static final Logger LOG = LoggerFactory.getLogger(ForwardedConnection.class);

  private ForwardedConnection() {}

  /**
   * The thread that forwards {@code port} once started; {@code ended} runs on it once both streams
   * are closed. Interrupt it when the client goes away.
   */
  static Thread unstarted(ForwardRequest request, int port, InputStream fromClient, OutputStream data, OutputStream error,
      Runnable ended) {
    return Thread.ofVirtual().name("portforward-" + port).unstarted(() -> {
      try {
        run(request, port, fromClient, data, error);
      } finally {
        ended.run();
      }
    });
  }

  private static void run(ForwardRequest request, int port, InputStream fromClient, OutputStream data,
      OutputStream error) {
    long start = System.nanoTime();
    request.metrics().opened(ForwardRequest.KIND);
    ExitStatus status;
    try {
      request.refusal(port).ifPresent(why -> {
        throw new CrigateException.InvalidArgument(why);
      });
      request.forwarder().forward(request.podSandboxId(), port, fromClient, data);
      status = ExitStatus.exited(0);
    } catch (CrigateException e) {
      status = ExitStatus.failed(e.getMessage());
    } catch (RuntimeException e) {
      LOG.warn("{}, port {}, failed", request.what(), port, e);
      status = ExitStatus.failed("internal error: " + e);
    }
    Session.closeQuietly(data);
    if (status.failure() != null) {
      writeQuietly(error, "error forwarding port %d to pod %s: %s".formatted(port, request.podSandboxId(), status.failure()));
    }
    Session.closeQuietly(error);
    request.metrics().ended(ForwardRequest.KIND, status);
    LOG.info("{}, port {}, ended after {} ms: {}", request.what(), port, (System.nanoTime() - start) / 1_000_000,
        status.failure() != null ? status : "closed");
  }

  private static void writeQuietly(OutputStream stream, String text) {
    try {
      stream.write(text.getBytes(StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      // the client is gone; nobody reads the error
    }
  }
}
